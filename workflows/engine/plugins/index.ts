/** Plugins: descriptors as plain data, the one registry, and what the engine derives from a descriptor. */
export { executeModeOf, type PluginDescriptor, type PluginKind } from './descriptor';
export { codeExecDescriptor, httpRequestDescriptor, paginatedFetchDescriptor } from './effectful';
export { outputPortsOf } from './ports';
export { isClosedObject, lookupField, typeText, type OutputSchema } from './outputs';
export { TWO_PHASE_WAIT_SETTINGS } from './schema';
export { isCompatibleVersion, isSemver, pinPlugins, pinnedPluginOf, PINNED_PLUGINS_KEY, type PinnedPlugin } from './pinned';
export { describePlugin, toJsonSchema, type PublicPluginDescriptor } from './public-descriptor';
export {
  PLUGINS,
  buildPluginRegistry,
  findPlugin,
  inlinePluginFor,
  isBuiltInPlugin,
  withPluginCatalog,
  type PluginCatalog,
  type PluginRegistry,
  type RegisteredPlugin,
} from './registry';
export { MAX_TRIGGER_STATE_BYTES, type TriggerLifecycleRequest, type TriggerLifecycleResult } from './trigger-lifecycle';
