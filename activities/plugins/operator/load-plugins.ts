/**
 * Loads the operator's plugins named by the PLUGINS setting (package names,
 * resolved from the working directory like its own dependencies, or paths
 * relative to it), checks each export, and refuses the whole set on the
 * first broken one: a plugin that cannot be loaded stops start-up with a
 * message naming it, in the API (which validates definitions with the
 * descriptors) and in the worker (which runs them) alike.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { isBuiltInPlugin, type PluginCatalog, type PluginDescriptor } from '../../../workflows/engine';
import { descriptorProblems, engineDescriptor } from './descriptor-format';
import type { PluginActivate, PluginDeactivate, PluginDescriptorExport, PluginExecute } from './plugin-api';

export class PluginLoadError extends Error {
  override readonly name = 'PluginLoadError';
}

export interface OperatorPlugin {
  /** The PLUGINS entry it was loaded from. */
  entry: string;
  descriptor: PluginDescriptor;
  /** A module's or a decider's. */
  execute?: PluginExecute;
  /** A trigger's: told when its trigger is activated on an alias, and deactivated. */
  trigger?: { activate: PluginActivate; deactivate?: PluginDeactivate };
}

export interface OperatorPlugins {
  /** The descriptors, for the engine's validator and the plugin catalog. */
  catalog: PluginCatalog;
  byName: ReadonlyMap<string, OperatorPlugin>;
}

export const NO_OPERATOR_PLUGINS: OperatorPlugins = { catalog: Object.freeze({}), byName: new Map() };

export async function loadOperatorPlugins(entries: readonly string[], cwd: string): Promise<OperatorPlugins> {
  const byName = new Map<string, OperatorPlugin>();
  for (const entry of entries) {
    const plugin = await loadOne(entry, cwd);
    const name = plugin.descriptor.name;
    const other = byName.get(name);
    if (other) throw new PluginLoadError(`plugin "${entry}" is named "${name}", like plugin "${other.entry}": names must be unique`);
    byName.set(name, plugin);
  }
  const catalog = Object.freeze(Object.fromEntries([...byName].map(([name, plugin]) => [name, plugin.descriptor])));
  return { catalog, byName };
}

async function loadOne(entry: string, cwd: string): Promise<OperatorPlugin> {
  let loaded: Record<string, unknown>;
  try {
    loaded = (await import(pathToFileURL(resolveEntry(entry, cwd)).href)) as Record<string, unknown>;
  } catch (error) {
    throw new PluginLoadError(`plugin "${entry}" could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { descriptor, execute, activate, deactivate } = pluginExports(loaded);
  const problems = descriptorProblems(descriptor);
  if (problems.length > 0) throw new PluginLoadError(`plugin "${entry}" has an invalid descriptor: ${problems.join('; ')}`);
  const valid = descriptor as PluginDescriptorExport;
  if (isBuiltInPlugin(valid.name)) throw new PluginLoadError(`plugin "${entry}" is named "${valid.name}", which is a built-in plugin`);
  const engine = Object.freeze(engineDescriptor(valid));
  const named = `plugin "${entry}" (${valid.name})`;
  if (valid.kind === 'trigger') {
    if (typeof activate !== 'function') throw new PluginLoadError(`${named} is a trigger and does not export an activate function`);
    if (deactivate !== undefined && typeof deactivate !== 'function')
      throw new PluginLoadError(`${named} exports a deactivate that is not a function`);
    if (execute !== undefined)
      throw new PluginLoadError(`${named} is a trigger: its steps run nothing, so it exports activate and deactivate, not execute`);
    return {
      entry,
      descriptor: engine,
      trigger: { activate: activate as PluginActivate, deactivate: deactivate as PluginDeactivate | undefined },
    };
  }
  if (typeof execute !== 'function') throw new PluginLoadError(`${named} does not export an execute function`);
  if (activate !== undefined || deactivate !== undefined)
    throw new PluginLoadError(`${named} exports activate or deactivate, which only a trigger has (its kind is ${valid.kind})`);
  return { entry, descriptor: engine, execute: execute as PluginExecute };
}

/** A path (starting with `.` or `/`) from `cwd`; else a package, resolved as `cwd`'s own dependencies are. */
function resolveEntry(entry: string, cwd: string): string {
  const require = createRequire(path.join(cwd, 'package.json'));
  return require.resolve(entry.startsWith('.') || path.isAbsolute(entry) ? path.resolve(cwd, entry) : entry);
}

/** `descriptor` and its functions as named exports, or as members of the default export (CommonJS modules land there too). */
function pluginExports(loaded: Record<string, unknown>): { descriptor: unknown; execute: unknown; activate: unknown; deactivate: unknown } {
  const from = loaded.descriptor !== undefined ? loaded : ((loaded.default as Record<string, unknown> | undefined) ?? {});
  return { descriptor: from.descriptor, execute: from.execute, activate: from.activate, deactivate: from.deactivate };
}
