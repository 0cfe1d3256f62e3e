/**
 * Checks of one normalized step: id, type, plugin and its config schema,
 * join strategy, timeout, error handling, condition and the expressions in
 * its config and inputs.
 */
import { validateObject } from './config-schema';
import {
  DEFAULT_PLUGIN_OF_TYPE,
  JOIN_STRATEGIES,
  RESERVED_STEP_IDS,
  STEP_ID_PATTERN,
  STEP_TYPES,
  type DefinitionIssue,
  type StepDefinition,
} from './definition';
import { isDuration } from './durations';
import { checkInputDeclarations, checkPayloadSchema } from './validate-declarations';
import { checkRaw, checkTemplates, type ExpressionContext } from './validate-expressions';
import { isObject, type StepSource } from './normalize';
import { findPlugin, type PluginDescriptor } from './plugins';
import { scriptProperties } from './plugins/descriptor';
import { checkScript } from './validate-script';
import type { ConfigReference } from './expressions';
import { join } from './pointer';
import { MAX_LOOP_ITERATIONS } from './runtime/loop';
import { refuseUnsupportedConfig, writtenInTypeScript } from './validate-unsupported';
import { checkDeclaredAnswer } from './inline/declared-answer';

/** Step types whose plugins are modules (wait and subworkflow are module plugins run specially). */
const MODULE_TYPES = new Set(['module', 'wait', 'subworkflow', 'observer', 'passthrough']);

const expressionPropertyCache = new WeakMap<PluginDescriptor, string[]>();

/** Config properties holding raw expressions (deciders), computed once per descriptor. */
function expressionProperties(plugin: PluginDescriptor): string[] {
  let names = expressionPropertyCache.get(plugin);
  if (!names) {
    names = Object.entries(plugin.configSchema.properties)
      .filter(([, property]) => property.format === 'expression')
      .map(([name]) => name);
    expressionPropertyCache.set(plugin, names);
  }
  return names;
}

export function stepPlugin(step: StepDefinition): PluginDescriptor | undefined {
  // `type` is unchecked input here (connections are validated even when a step is broken): never use it as a key unless it is a string.
  const name =
    typeof step.pluginType === 'string'
      ? step.pluginType
      : typeof step.type === 'string' && Object.hasOwn(DEFAULT_PLUGIN_OF_TYPE, step.type)
        ? DEFAULT_PLUGIN_OF_TYPE[step.type]
        : undefined;
  return name === undefined ? undefined : findPlugin(name);
}

export function validateStep(
  step: StepDefinition,
  source: StepSource,
  stepIds: Set<string>,
  issues: DefinitionIssue[],
  expressions: ExpressionContext,
): void {
  if (!STEP_ID_PATTERN.test(step.id) || RESERVED_STEP_IDS.has(step.id)) {
    issues.push({
      path: source.hasId ? fieldPath(source, 'id') : source.pointer,
      message: `step id "${step.id}" must match ^[A-Za-z_][A-Za-z0-9_]*$ (letters, digits, underscores; no hyphens) and not be reserved`,
    });
  }
  if (!(STEP_TYPES as readonly unknown[]).includes(step.type)) {
    issues.push({
      path: fieldPath(source, 'type'),
      message: step.type === undefined ? 'is required' : `must be one of ${STEP_TYPES.join(', ')}`,
    });
    return;
  }

  let plugin: PluginDescriptor | undefined;
  if (step.pluginType !== undefined && typeof step.pluginType !== 'string') {
    issues.push({ path: fieldPath(source, 'pluginType'), message: 'must be a string' });
  } else if (step.pluginType === undefined && (step.type === 'module' || step.type === 'decider' || step.type === 'trigger')) {
    issues.push({ path: fieldPath(source, 'pluginType'), message: `is required for steps of type ${step.type}` });
  } else {
    plugin = stepPlugin(step);
    if (step.pluginType !== undefined && !plugin) {
      issues.push({ path: fieldPath(source, 'pluginType'), message: `Unknown plugin type: ${step.pluginType} (step "${step.id}")` });
    } else if (plugin) {
      const fits = plugin.kind === step.type || (plugin.kind === 'module' && MODULE_TYPES.has(step.type));
      if (!fits)
        issues.push({
          path: fieldPath(source, 'pluginType'),
          message: `plugin ${plugin.name} is a ${plugin.kind}; it cannot run in a step of type ${step.type}`,
        });
    }
  }

  const configPath = fieldPath(source, 'config');
  const configIssuesFrom = issues.length;
  const referencesFrom = expressions.references.length;
  if (!isObject(step.config)) {
    issues.push({ path: configPath, message: 'must be an object' });
  } else {
    if (plugin) {
      validateObject(step.config, plugin.configSchema, configPath, issues);
      if (plugin.name === 'manual') checkInputDeclarations(step.config.inputs, join(configPath, 'inputs'), issues);
      if (plugin.name === 'webhook') checkPayloadSchema(step.config.payloadSchema, join(configPath, 'payloadSchema'), issues);
      if (plugin.name === 'signal-wait') checkDeclaredAnswer(step.config, configPath, issues);
      // A two-phase wait declares its answer under `answer` (its plugin owns the other config keys).
      if (plugin.twoPhaseWait && isObject(step.config.answer)) checkDeclaredAnswer(step.config.answer, join(configPath, 'answer'), issues);
      refuseUnsupportedConfig(plugin.name, step.config, configPath, issues);
      for (const name of expressionProperties(plugin)) {
        const value = step.config[name];
        if (typeof value === 'string') checkRaw(value, join(configPath, name), expressions);
      }
      for (const name of scriptProperties(plugin)) {
        const value = step.config[name];
        if (typeof value === 'string' && !writtenInTypeScript(plugin.name, step.config)) checkScript(value, join(configPath, name), issues);
      }
    }
    checkTemplates(step.config, configPath, expressions);
    // A setting read from `inputs:` is reported where the client wrote it.
    if (source.settings) pointAtInputs(issues, configIssuesFrom, configPath, fieldPath(source, 'inputs'), source.settings.read);
  }
  if (step.inputs !== undefined) {
    if (!isObject(step.inputs)) issues.push({ path: fieldPath(source, 'inputs'), message: 'must be an object' });
    else checkTemplates(step.inputs, fieldPath(source, 'inputs'), expressions);
  }
  refuseSecretsInWorkflow(step, plugin, expressions.references.slice(referencesFrom), fieldPath(source, 'config'), issues);

  if (step.joinStrategy !== undefined && !(JOIN_STRATEGIES as readonly unknown[]).includes(step.joinStrategy)) {
    issues.push({ path: fieldPath(source, 'joinStrategy'), message: `must be one of ${JOIN_STRATEGIES.join(', ')}` });
  }
  if (step.joinStrategy === 'count' && !(Number.isInteger(step.joinCount) && (step.joinCount as number) >= 1)) {
    issues.push({ path: fieldPath(source, 'joinCount'), message: 'must be an integer >= 1 when joinStrategy is count' });
  } else if (step.joinCount !== undefined && !(Number.isInteger(step.joinCount) && step.joinCount >= 1)) {
    issues.push({ path: fieldPath(source, 'joinCount'), message: 'must be an integer >= 1' });
  }
  if (step.timeout !== undefined && !(typeof step.timeout === 'string' && step.timeout.includes('${{')) && !isDuration(step.timeout)) {
    issues.push({
      path: fieldPath(source, 'timeout'),
      message: 'is not a valid duration (e.g. 500ms, 30s, 2h, 1d, PT24H or milliseconds)',
    });
  } else if (typeof step.timeout === 'string') {
    checkTemplates(step.timeout, fieldPath(source, 'timeout'), expressions);
  }
  if (step.condition !== undefined) {
    if (typeof step.condition === 'string') checkRaw(step.condition, fieldPath(source, 'condition'), expressions);
    else if (typeof step.condition !== 'boolean')
      issues.push({ path: fieldPath(source, 'condition'), message: 'must be an expression string or a boolean' });
  }
  for (const field of ['name', 'description'] as const) {
    if (step[field] !== undefined && typeof step[field] !== 'string')
      issues.push({ path: fieldPath(source, field), message: 'must be a string' });
  }
  if (step.metadata !== undefined && !isObject(step.metadata))
    issues.push({ path: fieldPath(source, 'metadata'), message: 'must be an object' });
  else if (
    step.metadata?.executionTimeoutMs !== undefined &&
    !(Number.isInteger(step.metadata.executionTimeoutMs) && (step.metadata.executionTimeoutMs as number) >= 1)
  )
    issues.push({ path: fieldPath(source, 'metadata', 'executionTimeoutMs'), message: 'must be an integer >= 1 (milliseconds)' });
  validateErrorHandling(step, source, stepIds, issues);
  validateIteration(step, source, issues, expressions);
}

/** Rewrites the paths of issues (from index `from`) under a config key that was read from `inputs:` to that inputs key. */
function pointAtInputs(issues: DefinitionIssue[], from: number, configPath: string, inputsPath: string, read: Map<string, string>): void {
  for (const [setting, key] of read) {
    const under = join(configPath, setting);
    for (let index = from; index < issues.length; index += 1) {
      const { path } = issues[index];
      if (path === under || path.startsWith(`${under}/`))
        issues[index] = { ...issues[index], path: join(inputsPath, key) + path.slice(under.length) };
    }
  }
}

/** Pointer of a step field as the client spelled it (snake_case keys keep their spelling). */
export function fieldPath(source: StepSource, camel: string, ...rest: Array<string | number>): string {
  return join(source.pointer, source.keys?.get(camel) ?? camel, ...rest);
}

function validateErrorHandling(step: StepDefinition, source: StepSource, stepIds: Set<string>, issues: DefinitionIssue[]): void {
  const handling = step.errorHandling;
  if (handling === undefined) return;
  if (!isObject(handling)) {
    issues.push({ path: fieldPath(source, 'errorHandling'), message: 'must be an object' });
    return;
  }
  if (handling.fallbackStep !== undefined) {
    if (typeof handling.fallbackStep !== 'string' || !stepIds.has(handling.fallbackStep)) {
      issues.push({
        path: fieldPath(source, 'errorHandling', 'fallbackStep'),
        message: `must name an existing step (got ${JSON.stringify(handling.fallbackStep)})`,
      });
    }
  }
  if (handling.continueOnError !== undefined && typeof handling.continueOnError !== 'boolean') {
    issues.push({ path: fieldPath(source, 'errorHandling', 'continueOnError'), message: 'must be a boolean' });
  }
  const retry = handling.retryPolicy;
  if (retry === undefined) return;
  if (!isObject(retry)) {
    issues.push({ path: fieldPath(source, 'errorHandling', 'retryPolicy'), message: 'must be an object' });
    return;
  }
  for (const field of ['maxRetries', 'maxAttempts'] as const) {
    const value = retry[field];
    if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
      issues.push({ path: fieldPath(source, 'errorHandling', 'retryPolicy', field), message: 'must be an integer >= 0' });
    }
  }
  for (const field of ['initialInterval', 'maxInterval'] as const) {
    if (retry[field] !== undefined && !isDuration(retry[field])) {
      issues.push({ path: fieldPath(source, 'errorHandling', 'retryPolicy', field), message: 'is not a valid duration' });
    }
  }
  if (retry.jitter !== undefined && !(typeof retry.jitter === 'number' && retry.jitter >= 0 && retry.jitter <= 1)) {
    issues.push({ path: fieldPath(source, 'errorHandling', 'retryPolicy', 'jitter'), message: 'must be a number from 0 to 1' });
  }
}

function validateIteration(step: StepDefinition, source: StepSource, issues: DefinitionIssue[], expressions: ExpressionContext): void {
  if (step.forEach !== undefined) {
    if (!isObject(step.forEach)) issues.push({ path: fieldPath(source, 'forEach'), message: 'must be an object' });
    else if (typeof step.forEach.expression !== 'string')
      issues.push({ path: fieldPath(source, 'forEach', 'expression'), message: 'is required (an expression yielding an array)' });
    else checkRaw(step.forEach.expression, fieldPath(source, 'forEach', 'expression'), expressions);
    const reduce = isObject(step.forEach) ? step.forEach.reduce : undefined;
    if (reduce !== undefined && !(isObject(reduce) && isVariableName(reduce.accumulator)))
      issues.push({
        path: fieldPath(source, 'forEach', 'reduce', 'accumulator'),
        message: 'must name the variable each iteration reads and replaces (a name like "total", not an expression)',
      });
  }
  if (step.loop !== undefined) {
    if (!isObject(step.loop)) issues.push({ path: fieldPath(source, 'loop'), message: 'must be an object' });
    else {
      const { loop } = step;
      if ((loop.forEach === undefined) === (loop.while === undefined))
        issues.push({
          path: fieldPath(source, 'loop'),
          message: 'needs exactly one of forEach (an array expression) or while (a condition)',
        });
      if (step.forEach !== undefined)
        issues.push({ path: fieldPath(source, 'loop'), message: 'cannot be combined with the step-level forEach; use one of them' });
      for (const form of ['forEach', 'while'] as const) {
        if (typeof loop[form] === 'string') checkRaw(loop[form], fieldPath(source, 'loop', form), expressions);
        else if (loop[form] !== undefined) issues.push({ path: fieldPath(source, 'loop', form), message: 'must be an expression string' });
      }
      for (const name of ['itemName', 'indexName'] as const) {
        const value = loop[name];
        if (value !== undefined && !(typeof value === 'string' && STEP_ID_PATTERN.test(value) && !RESERVED_STEP_IDS.has(value)))
          issues.push({ path: fieldPath(source, 'loop', name), message: 'must be a variable name matching ^[A-Za-z_][A-Za-z0-9_]*$' });
      }
      const max = loop.maxIterations;
      if (max !== undefined && !(Number.isInteger(max) && (max as number) >= 1 && (max as number) <= MAX_LOOP_ITERATIONS))
        issues.push({ path: fieldPath(source, 'loop', 'maxIterations'), message: `must be an integer from 1 to ${MAX_LOOP_ITERATIONS}` });
    }
  }
  if (
    step.outputProjection !== undefined &&
    !(Array.isArray(step.outputProjection) && step.outputProjection.every((p) => typeof p === 'string'))
  ) {
    issues.push({ path: fieldPath(source, 'outputProjection'), message: 'must be an array of strings' });
  }
}

/** A `forEach.reduce.accumulator`: a plain variable name (the documented form), never an expression. */
function isVariableName(value: unknown): boolean {
  return typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value) && !['__proto__', 'prototype', 'constructor'].includes(value);
}

/**
 * A plugin that runs inside the workflow never loads a secret (no secret value enters Temporal history), so a
 * template reading one would reach it as its raw text: refused here, saying what to write instead. `log` shows such a
 * part as <redacted> itself (`masksSecrets`); a trigger's secrets are read where requests arrive, not in the workflow.
 */
function refuseSecretsInWorkflow(
  step: StepDefinition,
  plugin: PluginDescriptor | undefined,
  references: ConfigReference[],
  configPath: string,
  issues: DefinitionIssue[],
): void {
  if (!plugin?.inline || plugin.kind === 'trigger' || plugin.masksSecrets) return;
  const secrets = [...new Set(references.filter((reference) => reference.kind === 'secret').map((reference) => reference.name))];
  if (secrets.length === 0) return;
  issues.push({
    path: configPath,
    message:
      `step "${step.id}" (${plugin.name}) runs inside the workflow, where secrets are never loaded: it cannot read ` +
      `${secrets.map((name) => `secrets.${name}`).join(', ')}. Read a secret in a step that runs as an activity ` +
      '(http-request, code-exec, an operator plugin), or use a variable (vars.*) for a value that is not secret',
  });
}
