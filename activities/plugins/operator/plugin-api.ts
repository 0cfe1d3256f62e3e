/**
 * What an operator's plugin is written against (types only: a plugin
 * package needs nothing of ours at run time). A plugin module exports
 * `descriptor` (plain data, checked at start-up by ./descriptor-format.ts)
 * and `execute` (a trigger: `activate` and `deactivate`), named or as the
 * members of its default export.
 */
import type { RequestInit, Response } from 'undici';

/** A config or nested property, in the JSON Schema subset the engine's one validator checks at publish. */
export interface PluginPropertySchema {
  /** Absent: any value. */
  type?: PluginValueType | PluginValueType[];
  description?: string;
  enum?: Array<string | number | boolean>;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  /** `duration` (500ms, 30s, PT1H or milliseconds), `cron`, or `expression` (a raw expression string). */
  format?: 'duration' | 'cron' | 'expression';
  items?: PluginPropertySchema;
  properties?: Record<string, PluginPropertySchema>;
  required?: string[];
  default?: unknown;
}

export type PluginValueType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array';

export interface PluginDescriptorExport {
  /** Lower-case letters, digits and hyphens; never the name of a built-in plugin. */
  name: string;
  /** Semantic version; a revision records it, and a worker runs the revision's steps only with a compatible one. */
  version: string;
  /**
   * `module`: a step that does something (run by the worker); `decider`: a step that answers which of its
   * `outputPorts` its items go to (its call runs in the worker too); `trigger`: a workflow's entry point, told when
   * its trigger is activated on an alias and deactivated (it exports `activate` and `deactivate`, not `execute`).
   */
  kind: 'module' | 'decider' | 'trigger';
  description: string;
  category?: string;
  /** `each` (default): one call per item; `all`: one call with the whole batch. */
  executeMode?: 'each' | 'all';
  /**
   * A two-phase wait (a module): `execute` does its side effect and returns `wait: {signalName, correlationKey?}`;
   * the step then parks on that signal in the workflow, as `signal-wait` does. Its step config also takes `timeout`,
   * `onTimeout` and `defaultValue` (added to `configSchema`, which may not declare them), and it has a `timeout` port.
   */
  twoPhaseWait?: boolean;
  /**
   * Per-step state (a module): every call of a step gets, as `state`, what the step's previous call in the
   * execution returned as `state` (the compatible engine's `nodeContext`: streaming fetchers, resumable agents).
   * Runs once per activation: `executeMode` is `all` (its default here).
   */
  nodeState?: boolean;
  /** Default `['default']` (a trigger has none). */
  inputPorts?: string[];
  /** Default `['default']`; a result's `activePorts` picks among them. A decider declares at least one besides `default`. */
  outputPorts?: string[];
  configSchema: { type: 'object'; properties: Record<string, PluginPropertySchema>; required?: string[] };
  /**
   * What a step outputs (`steps.<id>.outputs`): `{type: 'object', properties: {name: {type, description}}}`. Add
   * `additionalProperties: false` to have publish refuse references to fields it does not name (docs/plugins.md).
   */
  outputSchema?: Record<string, unknown>;
  examples?: Array<{ title?: string; config: Record<string, unknown>; inputs?: Record<string, unknown> }>;
  /** Markdown. */
  documentation?: string;
}

export interface PluginLogger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface PluginExecuteContext {
  /** The step's config with every template resolved, secrets included (never return or log it as is: it is redacted if you do). */
  config: Record<string, unknown>;
  /** The step's resolved `inputs`, else the item it runs on. */
  inputs: Record<string, unknown>;
  /** The batch (`all`) or the one item (`each`). */
  items: Array<Record<string, unknown>>;
  /** The secrets the step's templates read, by name (loaded for this call only). */
  secrets: Readonly<Record<string, string>>;
  /** Lines become the step's logs (secret values redacted). */
  log: PluginLogger;
  /** Aborted when the step's timeout passes or the execution is cancelled. */
  signal: AbortSignal;
  /** fetch through the worker's egress policy (every address and every redirect checked). */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  step: { executionId: string; organizationId: string; workflowId: string; stepId: string };
  /** A `nodeState` plugin's: the `state` its step's previous call in this execution returned (absent on the first, or once cleared). */
  state?: Record<string, unknown>;
}

/**
 * What `execute` returns: outputs (one item), or items; optionally the output ports to follow.
 * A decider returns `activePorts` (one or more) and optionally `outputs`: its step passes the items it got to those ports.
 */
export interface PluginExecuteResult {
  outputs?: Record<string, unknown>;
  items?: Array<Record<string, unknown>>;
  activePorts?: string[];
  /**
   * A two-phase wait's (only): the signal its step now waits for, and the correlation key it must carry (a name of
   * 1 to 200 characters, or a list of up to 16; a key of 1 to 500). The step's output is then the wait's (signal
   * metadata and payload keys) over `outputs`.
   */
  wait?: { signalName: string | string[]; correlationKey?: string };
  /**
   * A `nodeState` plugin's (only): the state its step's next call gets (a JSON object, at most the step output cap);
   * `null` clears it; absent keeps what it got.
   */
  state?: Record<string, unknown> | null;
}

/**
 * An error `execute` throws fails the step with its message. Give it a `code`
 * (the step error's code, e.g. `CHAT_REJECTED`) and `retryable: false` to stop
 * the step's retry policy from trying again.
 */
export type PluginExecute = (context: PluginExecuteContext) => Promise<PluginExecuteResult> | PluginExecuteResult;

/** What a trigger plugin's `activate` and `deactivate` receive. */
export interface PluginTriggerContext {
  /** The trigger step's config, templates resolved (`secrets.*` and `vars.*`: nothing else is in scope here). */
  config: Record<string, unknown>;
  /** The secrets its config's templates read, by name (loaded for this call only). */
  secrets: Readonly<Record<string, string>>;
  /** Lines go to the worker's log (secret values redacted). */
  log: PluginLogger;
  /** Aborted after 30 seconds, or when the worker stops. */
  signal: AbortSignal;
  /** fetch through the worker's egress policy, as for `execute`. */
  fetch: (url: string | URL, init?: RequestInit) => Promise<Response>;
  trigger: { organizationId: string; workflowId: string; aliasName: string; revision: number; triggerId: string };
  /**
   * The one capability the plugin gets: a URL that starts an execution of this workflow's alias (any of POST,
   * PUT, PATCH, DELETE; the request's `{method, headers, query, body}` is the trigger payload). Register it where
   * the events come from. It stops working when the trigger is deactivated (a new activation has a new one).
   */
  startUrl: string;
  /** `deactivate` only: the `state` `activate` returned. */
  state?: Record<string, unknown>;
}

/** What `activate` may return: state to keep for `deactivate` (a JSON object of at most 16 KiB, shown with the trigger). */
export interface PluginActivateResult {
  state?: Record<string, unknown>;
}

/** Called when the trigger is activated on an alias; a thrown error refuses the activation (rolled back), its `code` shown. */
export type PluginActivate = (
  context: PluginTriggerContext,
) => Promise<PluginActivateResult | undefined | void> | PluginActivateResult | undefined | void;

/** Called when the trigger is deactivated (or replaced by a new activation); an error is reported, the trigger still stops. */
export type PluginDeactivate = (context: PluginTriggerContext) => Promise<void> | void;

export interface PluginModule {
  descriptor: PluginDescriptorExport;
  execute: PluginExecute;
}

/** A trigger plugin's module. */
export interface PluginTriggerModule {
  descriptor: PluginDescriptorExport & { kind: 'trigger' };
  activate: PluginActivate;
  deactivate?: PluginDeactivate;
}
