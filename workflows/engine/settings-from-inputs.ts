/**
 * Plugin settings written in a step's `inputs:` map, as the compatible
 * engine's own quick-start writes them (`inputs: {url: …}` on an
 * http-request, `message` on a log, `code` on a code-exec; its np-style
 * plugins read `{...config, ...inputs}`). Normalization reads such a key as
 * the setting: a key of the `inputs:` map that names a config property of
 * the step's plugin (in either spelling), and that `config` does not set, is
 * copied into `config`, so validation, routing and the run all see one
 * config. It stays in `inputs` too (the compatible engine's plugins receive
 * it there as well), except a script (code-exec `code`): a script is code,
 * never data for itself.
 *
 * Only the definition's own `inputs:` map counts: a predecessor's output
 * that a step receives as its inputs is data and never becomes a setting
 * (the compatible engine's "hijack" of config by an upstream field cannot
 * happen here).
 *
 * When `config` sets the key as well, `config` wins and the inputs value
 * stays data only; if the two differ, publishing warns
 * (`SETTING_IN_INPUTS_SHADOWED`), since the compatible engine's np-style
 * plugins would have taken the inputs value.
 */
import type { DefinitionWarning, StepDefinition } from './definition';
import { join } from './pointer';
import type { PluginDescriptor } from './plugins/descriptor';

export const SETTING_SHADOWED = 'SETTING_IN_INPUTS_SHADOWED';

/** What normalization did with a step's inputs map: settings read from it, and keys `config` already set differently. */
export interface SettingsFromInputs {
  /** Config key → the inputs key as sent (`on_timeout` for `onTimeout`). */
  read: Map<string, string>;
  /** Inputs keys (as sent) whose setting `config` sets to another value. */
  shadowed: Array<{ setting: string; key: string }>;
}

const camelCase = (key: string): string => (key.includes('_') ? key.replace(/_+([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key);

/**
 * Copies the settings of `step.inputs` into `step.config` (a copy the normalizer owns) and drops scripts
 * from the inputs (into a new object). Returns what it did, or undefined when the inputs name no setting.
 */
export function readSettingsFromInputs(step: StepDefinition, plugin: PluginDescriptor): SettingsFromInputs | undefined {
  const inputs = step.inputs;
  if (inputs === null || typeof inputs !== 'object' || Array.isArray(inputs)) return undefined;
  const properties = plugin.configSchema.properties;
  let result: SettingsFromInputs | undefined;
  let scripts: Set<string> | undefined;
  for (const key of Object.keys(inputs)) {
    const setting = Object.hasOwn(properties, key) ? key : Object.hasOwn(properties, camelCase(key)) ? camelCase(key) : undefined;
    if (setting === undefined) continue;
    result ??= { read: new Map(), shadowed: [] };
    const value = inputs[key];
    if (Object.hasOwn(step.config, setting)) {
      if (!sameJson(step.config[setting], value)) result.shadowed.push({ setting, key });
      continue;
    }
    // Two spellings of one setting in inputs: the first read wins, as camelCase wins in config.
    if (result.read.has(setting)) continue;
    Object.defineProperty(step.config, setting, { value, enumerable: true, writable: true, configurable: true });
    result.read.set(setting, key);
    if (properties[setting].format === 'script') (scripts ??= new Set()).add(key);
  }
  // A new object (never the client's): fromEntries defines every key as an own property, `__proto__` included.
  if (scripts) step.inputs = Object.fromEntries(Object.entries(inputs).filter(([key]) => !scripts.has(key)));
  return result;
}

/** The warnings for a step's settings that `config` sets and its inputs map sets to something else. */
export function shadowedSettingWarnings(settings: SettingsFromInputs, plugin: string, inputsPath: string): DefinitionWarning[] {
  return settings.shadowed.map(({ setting, key }) => ({
    code: SETTING_SHADOWED,
    path: join(inputsPath, key),
    message:
      `inputs.${key} names the setting ${setting} of plugin ${plugin}, which config sets to another value: ` +
      `config.${setting} is the setting, and inputs.${key} is data only (the compatible engine's np-style plugins would take the inputs value); ` +
      'keep the setting in one place',
  }));
}

/** Structural equality of JSON values (object key order ignored: stored definitions come back in jsonb key order). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((value, index) => sameJson(value, other[index]));
  }
  const left = Object.keys(a);
  const right = b as Record<string, unknown>;
  return (
    left.length === Object.keys(right).length &&
    left.every((key) => Object.hasOwn(right, key) && sameJson((a as Record<string, unknown>)[key], right[key]))
  );
}
