/** The API's definition validator (with the server's default limits), extended with the plugins that stubs register. */
import { DEFAULT_LIMITS } from '../config/limits';
import { validateDefinition as validateWithEngine, type PluginDescriptor } from '../workflows/engine';
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
  const result = validateWithEngine(definition, { limits: DEFAULT_LIMITS, plugins: pluginDescriptors(options.plugins) });
  return { ok: result.errors.length === 0, errors: result.errors, warnings: result.warnings, definition: result.definition };
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
  return { ...stubDescriptors(stubs), ...descriptors };
}
