/**
 * What a plugin is, as plain data: kind, execute mode, ports and config
 * schema. The API validates definitions with descriptors and serves them at
 * /workflows/plugins; the workflow bundle reads the same objects, so
 * save-time and run-time knowledge cannot drift.
 */
import type { ConfigSchema } from '../config-schema';
import type { OutputSchema } from './outputs';

export type PluginKind = 'trigger' | 'decider' | 'module';

export interface PluginDescriptor {
  name: string;
  kind: PluginKind;
  description: string;
  /** `each`: one call per item; `all`: one call with the whole batch. */
  executeMode: 'each' | 'all';
  /** A config property that overrides `executeMode`, by its value (`iterateItems: false` → `all`). */
  executeModeFrom?: { property: string; modes: Record<string, 'each' | 'all'> };
  /** Runs inside the workflow (no activity round trip). */
  inline: boolean;
  /**
   * An inline plugin that only shows its config as text (`log`): a template segment in it that reads a
   * secret is shown as `<redacted>` and the secret is never loaded. Other inline plugins receive such a
   * string unresolved.
   */
  masksSecrets?: boolean;
  /**
   * A short network call that may run as a light step (a local activity) when the step's timeout (else its
   * `callTimeout`) is short (RunLimits.lightStepMaxTimeoutMs): no heavy CPU, nothing that needs heartbeats. Built-ins only.
   */
  light?: boolean;
  /**
   * The plugin bounds its own call: by the duration in config `property`, else `defaultMs`. A light plugin's
   * step without a `timeout` of its own is light when this bound is short enough (RunLimits.lightStepRule).
   */
  callTimeout?: { property: string; defaultMs: number };
  /**
   * Keeps state for the node: one call per activation, so a step of it never runs per item because it reads `$item`
   * (../item-scope.ts). A built-in keeps its place across loop re-entries (split-in-batches' batches, paginated-fetch's
   * pages); an operator's plugin gets the state it returned on its previous run in the execution, whatever the way in
   * (`nodeContext`: streaming fetchers, resumable agents).
   */
  nodeState?: boolean;
  /**
   * An operator's two-phase wait: its call (an activity) does a side effect and names the signal to wait for, then
   * the step parks on it in the workflow as `signal-wait` does (config `timeout`, `onTimeout`, `defaultValue`; a
   * `timeout` port). See ../runtime/operator-kinds.ts.
   */
  twoPhaseWait?: boolean;
  inputPorts: string[];
  outputPorts: string[];
  /** Output ports named by config (e.g. `case` ports); see `outputPortsOf`. */
  dynamicPorts?: boolean;
  configSchema: ConfigSchema;
  /** Semantic version (an operator's plugin must declare one; built-ins follow the engine's). */
  version?: string;
  /** Free grouping for catalogs (`communication`, `network`, …). */
  category?: string;
  /**
   * What a step of the plugin outputs (`steps.<id>.outputs`), as a JSON-Schema-like object (./outputs.ts).
   * Every built-in declares one; with `additionalProperties: false` the validator refuses references to
   * fields it does not name. The plugin's outputs themselves are not checked against it.
   */
  outputSchema?: OutputSchema;
  /** Example step configs, each with an optional title. */
  examples?: Array<{ title?: string; config: Record<string, unknown>; inputs?: Record<string, unknown> }>;
  /** Longer documentation (Markdown). */
  documentation?: string;
}

const scriptPropertyCache = new WeakMap<PluginDescriptor, string[]>();

/** Config properties that are scripts (format `script`: code-exec `code`), computed once per descriptor. */
export function scriptProperties(plugin: PluginDescriptor | undefined): string[] {
  if (!plugin) return [];
  let names = scriptPropertyCache.get(plugin);
  if (!names) {
    names = Object.entries(plugin.configSchema.properties)
      .filter(([, property]) => property.format === 'script')
      .map(([name]) => name);
    scriptPropertyCache.set(plugin, names);
  }
  return names;
}

/** The execute mode a step's config selects (a mode property), else the plugin's own. */
export function executeModeOf(
  plugin: Pick<PluginDescriptor, 'executeMode' | 'executeModeFrom'>,
  config: Record<string, unknown>,
): 'each' | 'all' {
  const from = plugin.executeModeFrom;
  const value = from ? config[from.property] : undefined;
  return (typeof value === 'string' || typeof value === 'boolean') && Object.hasOwn(from!.modes, String(value))
    ? from!.modes[String(value)]
    : plugin.executeMode;
}
