/** Plugins: descriptors as plain data, the one registry, and what the engine derives from a descriptor. */
export { executeModeOf, type PluginDescriptor, type PluginKind } from './descriptor';
export { codeExecDescriptor, httpRequestDescriptor, paginatedFetchDescriptor } from './effectful';
export { outputPortsOf } from './ports';
export { PLUGINS, buildPluginRegistry, findPlugin, inlinePluginFor, type PluginRegistry, type RegisteredPlugin } from './registry';
