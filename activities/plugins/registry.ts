/**
 * The one list of effectful plugin implementations the worker runs. Each
 * module under activities/plugins/ exports its implementation keyed by the
 * engine descriptor it implements; the registry is checked against the
 * engine's descriptors when this module loads, so an effectful plugin
 * described in the engine but not implemented here (or implemented twice,
 * or implementing a descriptor the engine does not register) fails at
 * start-up, not at run time.
 */
import { PLUGINS, type PluginDescriptor } from '../../workflows/engine';
import { codeExecPlugin } from './code-exec';
import { httpRequestPlugin } from './http-request';
import { paginatedFetchPlugin } from './paginated-fetch';
import type { EffectfulPlugin, PluginRun } from './plugin-context';

export const EFFECTFUL_PLUGINS: readonly EffectfulPlugin[] = [httpRequestPlugin, codeExecPlugin, paginatedFetchPlugin];

/**
 * The implementations by plugin name. Throws unless every non-inline
 * descriptor has exactly one implementation and every implementation's
 * descriptor is the registered (non-inline) one of its name.
 */
export function effectfulRegistry(
  plugins: readonly EffectfulPlugin[],
  descriptors: Readonly<Record<string, PluginDescriptor>> = PLUGINS,
): ReadonlyMap<string, PluginRun> {
  const runs = new Map<string, PluginRun>();
  for (const { descriptor, run } of plugins) {
    const name = descriptor.name;
    if (!Object.hasOwn(descriptors, name) || descriptors[name] !== descriptor)
      throw new Error(`effectful plugin "${name}" implements a descriptor the engine does not register`);
    if (descriptor.inline)
      throw new Error(`plugin "${name}" runs inside the workflow (inline: true); it cannot have an activity implementation`);
    if (runs.has(name)) throw new Error(`effectful plugin "${name}" has more than one implementation`);
    runs.set(name, run);
  }
  const missing = Object.values(descriptors).filter((descriptor) => !descriptor.inline && !runs.has(descriptor.name));
  if (missing.length > 0)
    throw new Error(
      `effectful plugin ${missing.map((descriptor) => `"${descriptor.name}"`).join(', ')} has no implementation in activities/plugins`,
    );
  return runs;
}

const REGISTRY = effectfulRegistry(EFFECTFUL_PLUGINS);

/** The implementation of an effectful plugin, if this worker has one. */
export function effectfulPluginFor(pluginType: string): PluginRun | undefined {
  return REGISTRY.get(pluginType);
}
