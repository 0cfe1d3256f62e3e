/**
 * A plugin's descriptor as GET /workflows/plugins serves it: everything an
 * author needs to write a step (version, category, kind, execute mode,
 * ports, config as standard JSON Schema, output schema, examples and
 * documentation), for built-in and operator plugins alike.
 */
import type { ConfigSchema, PropertySchema } from '../config-schema';
import { ENGINE_VERSION } from '../workflow-types';
import type { PluginDescriptor, PluginKind } from './descriptor';

export interface PublicPluginDescriptor {
  name: string;
  version: string;
  category: string;
  kind: PluginKind;
  /** The reference engine's name for `kind`. */
  pluginType: PluginKind;
  /** `built-in`, or `operator` for a plugin loaded through the PLUGINS setting. */
  source: 'built-in' | 'operator';
  description: string;
  executeMode: 'each' | 'all';
  executeModeFrom?: PluginDescriptor['executeModeFrom'];
  inline: boolean;
  /** Runs as a light step (a local activity) when its step's call is short (docs/architecture.md, "Light steps"). */
  light: boolean;
  /** Keeps state for its step across the execution (docs/plugins.md, "Per-step state"). */
  nodeState: boolean;
  /** Does a side effect, then parks its step on a signal (docs/plugins.md, "Two-phase wait"). */
  twoPhaseWait: boolean;
  inputPorts: string[];
  outputPorts: string[];
  dynamicPorts: boolean;
  configSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  examples: NonNullable<PluginDescriptor['examples']>;
  documentation: string;
}

export function describePlugin(plugin: PluginDescriptor, source: PublicPluginDescriptor['source'] = 'built-in'): PublicPluginDescriptor {
  return {
    name: plugin.name,
    version: plugin.version ?? ENGINE_VERSION,
    category: plugin.category ?? defaultCategory(plugin),
    kind: plugin.kind,
    pluginType: plugin.kind,
    source,
    description: plugin.description,
    executeMode: plugin.executeMode,
    ...(plugin.executeModeFrom ? { executeModeFrom: plugin.executeModeFrom } : {}),
    inline: plugin.inline,
    light: plugin.light === true,
    nodeState: plugin.nodeState === true,
    twoPhaseWait: plugin.twoPhaseWait === true,
    inputPorts: plugin.inputPorts,
    outputPorts: plugin.outputPorts,
    dynamicPorts: plugin.dynamicPorts === true,
    configSchema: toJsonSchema(plugin.configSchema),
    outputSchema: plugin.outputSchema ?? { type: 'object' },
    examples: plugin.examples ?? [],
    documentation: plugin.documentation ?? plugin.description,
  };
}

function defaultCategory(plugin: PluginDescriptor): string {
  if (plugin.kind === 'trigger') return 'trigger';
  if (plugin.kind === 'decider') return 'logic';
  return plugin.inline ? 'flow' : 'integration';
}

/** The engine's config schema as standard JSON Schema (`any` is no `type`; engine formats stay as annotations). */
export function toJsonSchema(schema: ConfigSchema): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, propertyJsonSchema(property)])),
    ...(schema.required && schema.required.length > 0 ? { required: schema.required } : {}),
  };
}

function propertyJsonSchema(property: PropertySchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const types = (Array.isArray(property.type) ? property.type : [property.type]).filter((type) => type !== 'any');
  const typed = !(Array.isArray(property.type) ? property.type : [property.type]).includes('any');
  if (typed) out.type = types.length === 1 ? types[0] : types;
  for (const key of ['description', 'enum', 'minimum', 'maximum', 'minLength', 'format', 'default'] as const)
    if (property[key] !== undefined) out[key] = property[key];
  if (property.items) out.items = propertyJsonSchema(property.items);
  if (property.properties)
    out.properties = Object.fromEntries(Object.entries(property.properties).map(([name, inner]) => [name, propertyJsonSchema(inner)]));
  if (property.required) out.required = property.required;
  return out;
}
