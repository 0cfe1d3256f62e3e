/**
 * What an operator's plugin is written against (types only: a plugin
 * package needs nothing of ours at run time). A plugin module exports
 * `descriptor` (plain data, checked at start-up by ./descriptor-format.ts)
 * and `execute`, named or as the members of its default export.
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
   * `outputPorts` its items go to (its call runs in the worker too).
   */
  kind: 'module' | 'decider';
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
  /** Default `['default']`. */
  inputPorts?: string[];
  /** Default `['default']`; a result's `activePorts` picks among them. A decider declares at least one besides `default`. */
  outputPorts?: string[];
  configSchema: { type: 'object'; properties: Record<string, PluginPropertySchema>; required?: string[] };
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

export interface PluginModule {
  descriptor: PluginDescriptorExport;
  execute: PluginExecute;
}
