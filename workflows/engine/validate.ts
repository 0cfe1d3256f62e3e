/**
 * The one definition validator, called by the API on publish/validate and by
 * the runtime before it walks a graph. Never throws: every problem becomes an
 * `{path, message}` entry whose path is a JSON pointer into the document as
 * the client sent it.
 */
import {
  WORKFLOW_KEY_PATTERN,
  type DefinitionIssue,
  type DefinitionWarning,
  type StepDefinition,
  type WorkflowDefinition,
} from './definition';
import type { ConfigReference } from './expressions';
import { hasOwn, isObject, normalizeDefinition, normalizeFolderPath } from './normalize';
import { outputPortsOf, pinPlugins, withPluginCatalog, type PluginCatalog } from './plugins';
import { scheduleTooFrequent, sizeIssues, type DefinitionLimits } from './limits';
import { join } from './pointer';
import { checkInputDeclarations, checkSecretDeclarations } from './validate-declarations';
import { checkRaw, checkTemplates, type ExpressionContext } from './validate-expressions';
import { checkReferences } from './validate-references';
import { fieldPath, stepPlugin, validateStep } from './validate-step';
import { loopWarnings } from './validate-loops';
import { ignoredKeyWarnings } from './validate-ignored';
import { checkItemScope } from './validate-items';
import { codeResultWarnings, stampCodeResults } from './validate-code-result';
import { shadowedSettingWarnings } from './settings-from-inputs';
import { flowControlIssues } from './flow-control';

export interface ValidationResult {
  errors: DefinitionIssue[];
  warnings: DefinitionWarning[];
  /** The normalized definition; present only when there are no errors. */
  definition?: WorkflowDefinition;
  /** `secrets.X` / `vars.X` referenced anywhere, deduplicated. */
  references: ConfigReference[];
}

export interface ValidationOptions {
  /** Publish-time ceilings (the API passes the operator's); absent, sizes are not checked. */
  limits?: DefinitionLimits;
  /** Operators' own plugins (the PLUGINS setting), known beside the built-ins; the ones used are pinned into the definition. */
  plugins?: PluginCatalog;
}

export function validateDefinition(input: unknown, options: ValidationOptions = {}): ValidationResult {
  try {
    if (options.limits && isObject(input)) {
      const tooLarge = sizeIssues(input, options.limits);
      if (tooLarge.length > 0) return { errors: tooLarge, warnings: [], references: [] };
    }
    const result = withPluginCatalog(options.plugins, () => validateUnsafe(input, options.limits));
    if (result.definition) {
      pinPlugins(result.definition, options.plugins);
      stampCodeResults(result.definition);
    }
    return result;
  } catch (error) {
    // A bug in the validator must not turn into a 5xx or a crashed workflow task.
    const message = error instanceof Error ? error.message : String(error);
    return { errors: [{ path: '', message: `the definition could not be validated: ${message}` }], warnings: [], references: [] };
  }
}

function validateUnsafe(input: unknown, limits: DefinitionLimits | undefined): ValidationResult {
  if (!isObject(input)) return { errors: [{ path: '', message: 'the definition must be an object' }], warnings: [], references: [] };
  const normalized = normalizeDefinition(input);
  const { definition: def, topKeys } = normalized;
  const issues: DefinitionIssue[] = [...normalized.issues];
  const warnings: DefinitionWarning[] = [];
  const context: ExpressionContext = { issues, references: [], maxExpressionLength: limits?.maxExpressionLength, parsed: [] };
  const top = (key: string, ...rest: Array<string | number>) => join('', topKeys.get(key) ?? key, ...rest);

  if (typeof def.name !== 'string' || def.name.trim() === '')
    issues.push({ path: top('name'), message: def.name === undefined ? 'is required' : 'must be a non-empty string' });
  if (def.key !== undefined && (typeof def.key !== 'string' || !WORKFLOW_KEY_PATTERN.test(def.key))) {
    issues.push({ path: top('key'), message: 'must match ^[a-z0-9][a-z0-9-]{0,62}$' });
  }
  if (typeof def.path !== 'string' || normalizeFolderPath(def.path) === undefined)
    issues.push({ path: top('path'), message: 'must be an absolute folder path such as /team/payments' });
  for (const field of ['description', 'nrn', 'semanticVersion', 'releaseNotes'] as const) {
    if (def[field] !== undefined && typeof def[field] !== 'string') issues.push({ path: top(field), message: 'must be a string' });
  }
  if (
    typeof def.nrn === 'string' &&
    !/^organization=[0-9*]+(:account=[0-9*]+)?(:namespace=[0-9*]+)?(:application=[0-9*]+)?(:scope=[0-9*]+)?$/.test(def.nrn)
  ) {
    issues.push({ path: top('nrn'), message: 'must be an NRN such as organization=1:account=2' });
  }
  for (const field of ['metadata', 'inputs', 'outputs', 'variables', 'secrets'] as const) {
    if (def[field] !== undefined && !isObject(def[field])) issues.push({ path: top(field), message: 'must be an object' });
  }
  if (isObject(def.variables)) {
    for (const [name, variable] of Object.entries(def.variables)) {
      if (!isObject(variable))
        issues.push({ path: top('variables', name), message: 'a variable must be an object (with optional initialValue)' });
      else if (variable.initialValue !== undefined) {
        const before = context.references.length;
        context.site = { kind: 'variables' };
        checkTemplates(variable.initialValue, top('variables', name, 'initialValue'), context);
        // Variables are persisted and served by /state, so a secret may not seed one.
        if (context.references.slice(before).some((r) => r.kind === 'secret')) {
          issues.push({ path: top('variables', name, 'initialValue'), message: 'may not reference secrets' });
        }
      }
    }
  }
  if (isObject(def.secrets)) checkSecretDeclarations(def.secrets, top('secrets'), issues);
  checkInputDeclarations(def.inputs, top('inputs'), issues);
  issues.push(...flowControlIssues(def, (key) => top(key)));
  context.site = { kind: 'outputs' };
  if (isObject(def.outputs)) checkTemplates(def.outputs, top('outputs'), context);
  if (def.steps === undefined || input.steps === undefined) issues.push({ path: top('steps'), message: 'is required' });
  else if (normalized.steps.size === 0 && normalized.issues.length === 0)
    issues.push({ path: top('steps'), message: 'must contain at least one step' });
  if (normalized.discardedTriggers) {
    warnings.push({
      code: 'TRIGGERS_DISCARDED',
      path: top('triggers'),
      message: 'triggers are rebuilt from steps of type trigger; the value sent was ignored',
    });
  }

  const stepIds = new Set(normalized.steps.keys());
  for (const [id, source] of normalized.steps) {
    context.site = { kind: 'step', stepId: id };
    validateStep(def.steps[id], source, stepIds, issues, context);
    checkItemScope(def.steps[id], stepPlugin(def.steps[id]), source, issues);
  }
  if (limits) {
    for (const [id, source] of normalized.steps) {
      const problem = scheduleTooFrequent(def.steps[id], limits.minCronIntervalSeconds);
      if (problem) issues.push({ path: fieldPath(source, 'config', 'schedule'), message: problem });
    }
  }
  validateConnections(def, normalized.connections, issues, context);
  context.site = undefined;
  checkReferences(def, context.parsed ?? [], issues, warnings);

  const errors = dedupe(issues);
  // Only a valid definition has steps sound enough to reason about what each key does.
  if (errors.length === 0) {
    warnings.push(...ignoredKeyWarnings(def, normalized.steps, (key) => top(key)));
    warnings.push(...codeResultWarnings(def, normalized.steps));
    warnings.push(...loopWarnings(def, normalized.steps, (index) => normalized.connections[index]?.pointer ?? top('connections')));
    for (const [id, source] of normalized.steps) {
      const step = def.steps[id];
      if (source.settings)
        warnings.push(...shadowedSettingWarnings(source.settings, step.pluginType ?? step.type, fieldPath(source, 'inputs')));
    }
  }
  const references = dedupeReferences(context.references);
  return errors.length > 0 ? { errors, warnings, references } : { errors, warnings, definition: def, references };
}

type ConnectionSource = { pointer: string; fromDependsOn: boolean };

/** A connection made from `dependsOn` is reported at the dependsOn item the client wrote. */
function connectionPath(source: ConnectionSource, field: string): string {
  return source.fromDependsOn ? source.pointer : join(source.pointer, field);
}

function validateConnections(
  def: WorkflowDefinition,
  sources: ConnectionSource[],
  issues: DefinitionIssue[],
  context: ExpressionContext,
): void {
  for (let index = 0; index < def.connections.length; index += 1) {
    const connection = def.connections[index];
    const source = sources[index];
    let endsValid = true;
    for (const field of ['from', 'to'] as const) {
      const value = connection[field];
      if (typeof value !== 'string' || !hasOwn(def.steps, value)) {
        issues.push({
          path: connectionPath(source, field),
          message: value === undefined ? 'is required (a step id)' : `must name an existing step (got ${JSON.stringify(value)})`,
        });
        endsValid = false;
      }
    }
    for (const field of ['sourcePort', 'targetPort'] as const) {
      if (typeof connection[field] !== 'string') {
        issues.push({ path: connectionPath(source, field), message: 'must be a string' });
        endsValid = false;
      }
    }
    if (connection.condition !== undefined) {
      context.site =
        typeof connection.from === 'string' && hasOwn(def.steps, connection.from)
          ? { kind: 'connection', from: connection.from }
          : undefined;
      if (typeof connection.condition === 'string') checkRaw(connection.condition, connectionPath(source, 'condition'), context);
      else if (typeof connection.condition !== 'boolean')
        issues.push({ path: connectionPath(source, 'condition'), message: 'must be an expression string or a boolean' });
    }
    if (endsValid) checkPorts(def, connection, source, issues);
  }
}

type Connection = WorkflowDefinition['connections'][number];

function checkPorts(def: WorkflowDefinition, connection: Connection, at: ConnectionSource, issues: DefinitionIssue[]): void {
  const target = def.steps[connection.to];
  if (target.type === 'trigger')
    issues.push({ path: connectionPath(at, 'to'), message: `step "${connection.to}" is a trigger and cannot have incoming connections` });
  // Every step has the `default` ports: only other names need the plugins' port lists.
  if (connection.sourcePort !== 'default') checkSourcePort(def.steps[connection.from], connection, at, issues);
  if (connection.targetPort !== 'default') checkTargetPort(target, connection, at, issues);
}

function checkSourcePort(source: StepDefinition, connection: Connection, at: ConnectionSource, issues: DefinitionIssue[]): void {
  const plugin = stepPlugin(source);
  if (!plugin) {
    issues.push({ path: connectionPath(at, 'sourcePort'), message: `step "${connection.from}" has only the output port "default"` });
    return;
  }
  if (typeof source.config !== 'object' || source.config === null) return;
  const ports = outputPortsOf(plugin, source.config);
  if (!ports.includes(connection.sourcePort)) {
    issues.push({
      path: connectionPath(at, 'sourcePort'),
      message: `CONNECTION_SOURCE_PORT_UNKNOWN: step "${connection.from}" (${plugin.name}) has no output port "${connection.sourcePort}"; ports: ${ports.join(', ')}`,
    });
  }
}

function checkTargetPort(target: StepDefinition, connection: Connection, at: ConnectionSource, issues: DefinitionIssue[]): void {
  const inputPorts = ['default', ...(stepPlugin(target)?.inputPorts ?? [])];
  if (!inputPorts.includes(connection.targetPort)) {
    issues.push({
      path: connectionPath(at, 'targetPort'),
      message: `step "${connection.to}" has no input port "${connection.targetPort}"; ports: ${[...new Set(inputPorts)].join(', ')}`,
    });
  }
}

function dedupe(issues: DefinitionIssue[]): DefinitionIssue[] {
  const seen = new Set<string>();
  return issues.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function dedupeReferences(references: ConfigReference[]): ConfigReference[] {
  const seen = new Map<string, ConfigReference>();
  for (const reference of references) seen.set(`${reference.kind}:${reference.name}`, reference);
  return [...seen.values()];
}
