/**
 * The one place plugins are registered. Adding a plugin is one entry in
 * `REGISTERED`: a trigger or effectful descriptor (plain data; effectful ones
 * are implemented once under activities/plugins/), or an inline plugin module
 * (its descriptor and implementation together). The registry is built and
 * checked when the engine loads, so a plugin that is half registered fails at
 * start-up, not at run time.
 */
import { casePlugin } from '../inline/case';
import { conditionalPlugin } from '../inline/conditional';
import { delayPlugin } from '../inline/delay';
import { failPlugin } from '../inline/fail';
import type { InlinePlugin, InlineRun } from '../inline/inline-plugin';
import { logPlugin } from '../inline/log';
import { noOpPlugin } from '../inline/no-op';
import { setVariablePlugin } from '../inline/set-variable';
import { signalWaitPlugin } from '../inline/signal-wait';
import { splitInBatchesPlugin } from '../inline/split-in-batches';
import { subWorkflowPlugin } from '../inline/sub-workflow';
import { webhookWaitPlugin } from '../inline/webhook-wait';
import type { PluginDescriptor } from './descriptor';
import { codeExecDescriptor, httpRequestDescriptor, paginatedFetchDescriptor } from './effectful';
import { TRIGGERS } from './triggers';

export type RegisteredPlugin = PluginDescriptor | InlinePlugin;

const REGISTERED: readonly RegisteredPlugin[] = [
  ...TRIGGERS,
  conditionalPlugin,
  casePlugin,
  logPlugin,
  noOpPlugin,
  failPlugin,
  delayPlugin,
  setVariablePlugin,
  signalWaitPlugin,
  webhookWaitPlugin,
  splitInBatchesPlugin,
  paginatedFetchDescriptor,
  subWorkflowPlugin,
  httpRequestDescriptor,
  codeExecDescriptor,
];

export interface PluginRegistry {
  descriptors: Readonly<Record<string, PluginDescriptor>>;
  inline: Readonly<Record<string, InlineRun>>;
}

/**
 * Builds the descriptor and inline maps from one list, and refuses a list
 * where a name repeats, an inline plugin's descriptor is not `inline`, or an
 * `inline` non-trigger descriptor has no implementation in the workflow.
 * (Effectful descriptors are matched with their activity implementations by
 * activities/plugins/registry.ts.)
 */
export function buildPluginRegistry(entries: readonly RegisteredPlugin[]): PluginRegistry {
  const descriptors: Record<string, PluginDescriptor> = {};
  const inline: Record<string, InlineRun> = {};
  for (const entry of entries) {
    const descriptor = 'descriptor' in entry ? entry.descriptor : entry;
    if (Object.hasOwn(descriptors, descriptor.name)) throw new Error(`plugin "${descriptor.name}" is registered twice`);
    descriptors[descriptor.name] = descriptor;
    if ('run' in entry) {
      if (!descriptor.inline)
        throw new Error(`plugin "${descriptor.name}" has an inline implementation but its descriptor says inline: false`);
      inline[descriptor.name] = entry.run;
    } else if (descriptor.inline && descriptor.kind !== 'trigger') {
      throw new Error(
        `inline plugin "${descriptor.name}" has a descriptor but no implementation (register its module, not its descriptor)`,
      );
    }
  }
  return { descriptors: Object.freeze(descriptors), inline: Object.freeze(inline) };
}

const registry = buildPluginRegistry(REGISTERED);

/** Every plugin's descriptor by name (served by GET /workflows/plugins). */
export const PLUGINS: Readonly<Record<string, PluginDescriptor>> = registry.descriptors;

/** Descriptors of operators' own plugins, by name: plain data the API and the worker load at start (see `PLUGINS` setting). */
export type PluginCatalog = Readonly<Record<string, PluginDescriptor>>;

/** The operator plugins `findPlugin` also knows while `withPluginCatalog` runs (never set inside the workflow sandbox). */
let catalog: PluginCatalog | undefined;

/**
 * Runs `work` (synchronous: validation) with an operator catalog known to
 * `findPlugin`, so the one validator sees built-in and operator plugins alike
 * without every helper on the way passing the catalog down. A catalog cannot
 * shadow a built-in (the loader refuses such names).
 */
export function withPluginCatalog<T>(plugins: PluginCatalog | undefined, work: () => T): T {
  const before = catalog;
  catalog = plugins;
  try {
    return work();
  } finally {
    catalog = before;
  }
}

export function findPlugin(name: string): PluginDescriptor | undefined {
  if (Object.prototype.hasOwnProperty.call(PLUGINS, name)) return PLUGINS[name];
  return catalog !== undefined && Object.prototype.hasOwnProperty.call(catalog, name) ? catalog[name] : undefined;
}

/** Whether `name` is a built-in plugin (operator plugins may not take these names). */
export function isBuiltInPlugin(name: string): boolean {
  return Object.prototype.hasOwnProperty.call(PLUGINS, name);
}

/** The implementation of a plugin that runs inside the workflow, if it is one. */
export function inlinePluginFor(pluginType: string | undefined): InlineRun | undefined {
  return pluginType !== undefined && Object.hasOwn(registry.inline, pluginType) ? registry.inline[pluginType] : undefined;
}
