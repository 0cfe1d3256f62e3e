/**
 * The compatible engine's publish pipeline as its tests call it,
 * `parseYamlDocument` → `normalizeWorkflowDocument` → `schemaValidate`, on
 * this kit's own reader, normalizer and validator (./load, ./validate): the
 * same checks the API makes on publish, under that harness's names and result
 * shapes (`{ document, errors }`, the definition, `{ ok, errors, value }`).
 */
import { isBuiltInPlugin, type WorkflowDefinition } from '../workflows/engine';
import { normalizeDefinition, parseDocument, type DefinitionError } from './load';
import type { Stubs } from './stubs';
import { validateDefinition, type KitValidationOptions, type ValidationWarning } from './validate';

/** A problem in a document: `severity` as that harness marks it (here every parse problem is an error). */
export interface DocumentIssue extends DefinitionError {
  severity: 'error' | 'warning';
}

export interface ParsedYamlDocument {
  /** The document's value (undefined when it does not parse). */
  document: unknown;
  errors: DocumentIssue[];
}

export interface SchemaValidationResult {
  ok: boolean;
  /** The definition as validated (normalized), when it is one. */
  value?: WorkflowDefinition;
  errors: DocumentIssue[];
  warnings: ValidationWarning[];
}

/** Parses YAML or JSON text (or a path to a file) without validating it. */
export function parseYamlDocument(textOrPath: string): ParsedYamlDocument {
  const parsed = parseDocument(textOrPath);
  return { document: parsed.value, errors: parsed.errors.map((error) => ({ ...error, severity: 'error' })) };
}

/** The normalized definition (steps by id, camelCase structural keys); problems are `schemaValidate`'s to report. */
export function normalizeWorkflowDocument(document: unknown): WorkflowDefinition {
  if (document === null || typeof document !== 'object' || Array.isArray(document))
    throw new TypeError('normalizeWorkflowDocument takes a parsed workflow document (an object): parseYamlDocument(text).document');
  return normalizeDefinition(document as Record<string, unknown>);
}

/**
 * Validates a document or normalized definition as the API does on publish. A plugin type that is neither built in
 * nor given in `options.plugins` is taken as a vendor plugin of its step's kind (that harness checks the document's
 * shape, not a registry): its config is the plugin's business; running it needs a stub.
 */
export function schemaValidate(definition: unknown, options: KitValidationOptions = {}): SchemaValidationResult {
  const result = validateDefinition(withoutRebuiltTriggers(definition), { plugins: { ...vendorPlugins(definition), ...options.plugins } });
  return {
    ok: result.ok,
    ...(result.ok && result.definition ? { value: result.definition } : {}),
    errors: result.errors.map((error) => ({ ...error, severity: 'error' as const })),
    warnings: result.warnings,
  };
}

/** The plugin types the definition's steps name that are not built in, declared by the kind of step that uses them. */
function vendorPlugins(definition: unknown): Stubs {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition)) return {};
  const { steps } = normalizeDefinition(definition as Record<string, unknown>);
  const plugins: Stubs = {};
  for (const step of Object.values(steps ?? {})) {
    const name = step.pluginType;
    if (typeof name !== 'string' || isBuiltInPlugin(name) || Object.hasOwn(plugins, name)) continue;
    plugins[name] = { kind: step.type === 'trigger' || step.type === 'decider' ? step.type : 'module' };
  }
  return plugins;
}

/**
 * A normalized definition (normalizeWorkflowDocument's) carries the `triggers` normalizing rebuilt from its steps:
 * validating it again would warn that a sent value was ignored. Those are left out; a document's own are kept.
 */
function withoutRebuiltTriggers(definition: unknown): unknown {
  if (definition === null || typeof definition !== 'object' || Array.isArray(definition) || !('triggers' in definition)) return definition;
  const { triggers, ...rest } = definition as Record<string, unknown>;
  return JSON.stringify(normalizeDefinition(rest).triggers) === JSON.stringify(triggers) ? rest : definition;
}
