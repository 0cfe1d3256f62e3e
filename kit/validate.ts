/** The API's definition validator (with the server's default limits), extended with the plugins that stubs register. */
import { DEFAULT_LIMITS } from '../config/limits';
import { KEY_IGNORED, isBuiltInPlugin, validateDefinition as validateWithEngine, type PluginDescriptor } from '../workflows/engine';
import { stubDescriptors, type Stubs } from './stubs';

export interface ValidationIssue {
  /** JSON pointer into the document as written. */
  path: string;
  message: string;
}

export interface ValidationWarning extends ValidationIssue {
  code: string;
}

export interface KitValidationOptions {
  /** Plugins besides the built-in ones: stubs (as given to runWorkflow) or descriptors by name. */
  plugins?: Stubs | Record<string, PluginDescriptor>;
}

export interface KitValidationResult {
  ok: boolean;
  errors: ValidationIssue[];
  warnings: ValidationWarning[];
}

export function validateDefinition(
  definition: unknown,
  options: KitValidationOptions = {},
): KitValidationResult & {
  definition?: ReturnType<typeof validateWithEngine>['definition'];
} {
  // The server's default publish limits (sizes, expression length, cron interval): what validates here publishes there.
  const plugins = pluginDescriptors(options.plugins);
  const result = validateWithEngine(definition, { limits: DEFAULT_LIMITS, plugins });
  // A stub of a vendor plugin declares no config schema: its config keys are the plugin's business, not "ignored".
  const open = Object.values(plugins ?? {}).filter((plugin) => Object.keys(plugin.configSchema.properties).length === 0);
  const warnings = result.warnings.filter(
    (warning) =>
      !(
        warning.code === KEY_IGNORED &&
        open.some((plugin) => warning.message.endsWith(`is not a config key of plugin ${plugin.name}; it has no effect`))
      ),
  );
  return { ok: result.errors.length === 0, errors: result.errors, warnings, definition: result.definition };
}

function isDescriptor(value: unknown): value is PluginDescriptor {
  return value !== null && typeof value === 'object' && 'configSchema' in value && 'kind' in value && 'name' in value;
}

function pluginDescriptors(plugins: KitValidationOptions['plugins']): Record<string, PluginDescriptor> | undefined {
  if (!plugins) return undefined;
  const descriptors: Record<string, PluginDescriptor> = {};
  const stubs: Stubs = {};
  for (const [name, plugin] of Object.entries(plugins)) {
    if (isDescriptor(plugin)) descriptors[name] = plugin;
    else stubs[name] = plugin as Stubs[string];
  }
  // Known to the validator as operator plugins are: a built-in keeps its own contract there (a stub of it still replaces it at run time).
  const all = { ...stubDescriptors(stubs), ...descriptors };
  return Object.fromEntries(Object.entries(all).filter(([name]) => !isBuiltInPlugin(name)));
}
