/** Public surface of the pure definition engine. */
export * from './definition';
export * from './durations';
export { cronError } from './cron';
export { parseExpression, templateErrors, type ConfigReference, type ConfigKind } from './expressions';
export { normalizeDefinition, normalizeFolderPath } from './normalize';
export { PLUGINS, findPlugin, outputPortsOf, type PluginDescriptor } from './plugins';
export { validateDefinition, type ValidationResult } from './validate';
export { EXECUTION_WORKFLOW_TYPE, ENGINE_VERSION } from './workflow-types';
