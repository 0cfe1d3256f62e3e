/**
 * Runs one activation of one step: its condition, `forEach` or `loop`, the items model
 * (`each` fans out per item with bounded parallelism, `all` gets the batch),
 * inline plugins in the workflow and effectful ones through an activity,
 * `outputProjection`, and the step record. Returns the outcome the walker
 * settles.
 */
import type { StepDefinition, WorkflowDefinition } from '../definition';
import { parseDuration } from '../durations';
import { ExpressionError, evaluateExpression, isTruthy, type EvaluationScope } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { Activation, StepOutcome } from '../graph/walker';
import { findPlugin, inlinePluginFor, isBuiltInPlugin, pinnedPluginOf } from '../plugins';
import { stepItemMode } from '../item-scope';
import { SECRET_MASK, resolveInputs, resolveScript, resolveTemplates, scopeForDeferred, type DeferredTemplate } from '../templates';
import { scriptProperties } from '../plugins/descriptor';
import { RUN_LIMIT_SETTINGS, runLimitsOf } from '../limits';
import { followsRule } from '../engine-rules';
import { mapLimit } from './concurrency';
import { utf8Length } from './sizes';
import { stepScope } from './context';
import { project } from './paths';
import { toTemporalRetryPolicy } from './retry';
import { jitterOf, withRetries } from './retry-loop';
import { renamingBindings } from '../secret-bindings';
import type { InlineCall } from '../inline/inline-plugin';
import {
  PLUGIN_LOGS_DETAIL,
  type ActivityCall,
  type Item,
  type PluginCall,
  type PluginResult,
  type ScopeExtras,
  type StepAttempt,
  type StepEnv,
  type StepError,
  type StepRecord,
} from './types';
import { runForEach } from './for-each';
import { deciderResult, operatorTraitsOf, parkAfterSideEffect } from './operator-kinds';
import { runLoop } from './loop';
import { reusedRecord, takeOver } from './reuse';
import { keepAttempts, recordedConfig, trackedAttempt } from './attempts';

export const DEFAULT_PARALLELISM = 5;
export const DEFAULT_STEP_TIMEOUT_MS = 5 * 60_000;
/** Keys that deciders evaluate as raw expressions themselves, so template resolution leaves them alone. */
const RAW_KEYS: Record<string, string[]> = { conditional: ['expression'], case: ['expression'] };

export async function runStep(env: StepEnv, activation: Activation): Promise<{ record: StepRecord; outcome: StepOutcome }> {
  const { ctx, effects } = env;
  const step = ctx.input.definition.steps[activation.stepId];
  // A retry takes over what completed in the run it retries (./reuse.ts).
  const reused = reusedRecord(env, activation);
  if (reused) return takeOver(env, activation, reused);
  const startedAt = iso(effects.now());
  const record: StepRecord = {
    stepId: step.id,
    status: 'running',
    run: activation.run,
    items: [],
    outputs: {},
    activePorts: [],
    startedAt,
  };
  ctx.steps[step.id] = record;
  effects.onEvent({ type: 'step.started', stepId: step.id, run: activation.run, at: startedAt });

  const signal = signalFor(env, activation);
  let result: PluginResult;
  try {
    if (step.type === 'trigger') {
      const port = step.id === ctx.input.trigger.stepId ? ctx.input.trigger.port : undefined;
      result = { status: 'success', items: activation.items, ...(port ? { activePorts: [port] } : {}) };
    } else if (
      step.condition !== undefined &&
      !isTruthy(evaluateCondition(step.condition, stepScope(ctx, { items: activation.items, item: activation.items[0], signal })))
    ) {
      result = { status: 'skipped' };
    } else if (step.forEach) {
      result = await runForEach(env, step, activation, signal, callPlugin);
    } else if (step.loop) {
      result = await runLoop(env, step, activation, signal, callPlugin);
    } else {
      result = await runItems(env, step, activation, signal);
    }
  } catch (error) {
    recordFailureLogs(env, step.id, error);
    result = { status: 'failure', error: toStepError(error) };
  }
  return finish(env, step, activation, record, boundOutput(env, step, result));
}

/** A step whose output is over the run's limit fails instead: it would bloat the run's state, history and records. */
function boundOutput(env: StepEnv, step: StepDefinition, result: PluginResult): PluginResult {
  const max = runLimitsOf(env.ctx.input).maxStepOutputBytes;
  if (result.status !== 'success' || !Number.isFinite(max)) return result;
  const size = utf8Length(JSON.stringify(itemsOf(result)));
  if (size <= max) return result;
  return {
    status: 'failure',
    error: {
      code: 'STEP_OUTPUT_TOO_LARGE',
      message: `step "${step.id}" produced ${size} bytes of output; at most ${max} are allowed (${RUN_LIMIT_SETTINGS.maxStepOutputBytes})`,
      retryable: false,
    },
  };
}

function evaluateCondition(condition: string | boolean, scope: EvaluationScope): unknown {
  return typeof condition === 'boolean' ? condition : evaluateExpression(unwrapRaw(condition), scope);
}

/** `each` mode: one call per item (bounded parallelism), results concatenated in item order; `all` (or a join): one call. */
async function runItems(env: StepEnv, step: StepDefinition, activation: Activation, signal: ScopeExtras['signal']): Promise<PluginResult> {
  // A plugin the host runs itself (a kit stub) first; an operator plugin is known here only by its pin in the definition
  // (the sandbox has no live registry of them).
  const plugin =
    env.effects.hostPlugin?.(step.pluginType ?? '') ??
    findPlugin(step.pluginType ?? '') ??
    pinnedPluginOf(env.ctx.input.definition, step.pluginType);
  // `fanOutPerItem`, a mode in config, the plugin's mode, or a batch plugin reading `$item` (../item-scope.ts).
  const { mode, perItemEvenJoined } = stepItemMode(step, plugin);
  const items = activation.items;
  // Single-producer rule (engine-reference §2): implicit fan-out only when one edge carries the items; a join
  // of several edges is one call on the concatenated items, unless the step asks for per-item calls itself.
  const producers = Object.entries(activation.via).filter(
    ([edgeId, state]) => state === 'taken' || env.topology.edges[edgeId]?.kind === 'error',
  ).length;
  const joined = !perItemEvenJoined && producers > 1;
  if (mode === 'all' || joined || items.length <= 1) {
    const item = mode === 'each' && !joined ? items[0] : undefined;
    return callPlugin(env, step, activation, { items, item, itemIndex: 0, signal, soleCall: true });
  }
  const limit = Math.min(
    Number(step.metadata?.maxParallelism ?? step.config.maxParallelism ?? DEFAULT_PARALLELISM) || DEFAULT_PARALLELISM,
    runLimitsOf(env.ctx.input).maxParallelism,
  );
  const record = env.ctx.steps[step.id];
  const fanOutProgress = { done: 0, total: items.length, failed: 0 };
  record.metadata = { fanOut: fanOutProgress };
  const results = await mapLimit(items, limit, async (item, itemIndex) => {
    const result = await callPlugin(env, step, activation, { items, item, itemIndex, signal });
    fanOutProgress.done += 1;
    if (result.status === 'failure') fanOutProgress.failed += 1;
    return result;
  });
  const failed = results.find((r) => r.status === 'failure');
  if (failed) return failed;
  const ports: Record<string, Item[]> = {};
  for (const result of results) {
    for (const port of result.activePorts ?? ['default']) (ports[port] ??= []).push(...itemsOf(result));
  }
  const first = results[0];
  return { status: 'success', items: results.flatMap(itemsOf), outputs: first.outputs, metadata: { ports } };
}

/** One plugin call with its scope: config and inputs resolved, inline or through an activity. */
export async function callPlugin(
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  extras: Parameters<PluginCall>[3],
): Promise<PluginResult> {
  const { ctx, effects } = env;
  if (step.type === 'passthrough' || (!step.pluginType && step.type !== 'wait'))
    return { status: 'success', items: extras.item ? [extras.item] : extras.items };
  const pluginType = step.type === 'wait' && !step.pluginType ? 'signal-wait' : (step.pluginType as string);
  // A call for the whole batch reads `$item` as its incoming item (the first), as the compatible engine gives it;
  // the plugin still gets the whole batch as its items.
  const batchItem = extras.soleCall && extras.item === undefined ? extras.items[0] : undefined;
  let scope = stepScope(ctx, batchItem === undefined ? extras : { ...extras, item: batchItem });
  if (extras.extraVariables) scope = { ...scope, variables: { ...ctx.variables, ...extras.extraVariables } };
  // forEach passes its per-iteration inputs; otherwise the declared `inputs` map, else the item itself (data: never resolved).
  const resolvedInputs = extras.extraInputs ?? (step.inputs ? resolveInputs(step.inputs, scope) : undefined);
  const inputs = resolvedInputs?.values ?? extras.item ?? extras.items[0] ?? {};
  const deferred: DeferredTemplate[] = [...(resolvedInputs?.deferred ?? [])];
  scope = { ...scope, inputs };
  const raw = RAW_KEYS[pluginType] ?? [];
  const scripts = scriptProperties(findPlugin(pluginType));
  // A plugin the host runs itself (a kit stub) replaces the built-in one of that name.
  const inline = effects.hostPlugin?.(pluginType) ? undefined : inlinePluginFor(pluginType);
  // An inline plugin that shows text (log) renders a segment reading a secret as <redacted>, never loading the secret.
  const mask = inline && findPlugin(pluginType)?.masksSecrets === true ? SECRET_MASK : undefined;
  const config: Record<string, unknown> = {};
  // A script stays as written; its templates' texts travel apart, and the sandbox reads them as values.
  const bound: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(step.config ?? {})) {
    if (typeof value === 'string' && scripts.includes(key)) {
      config[key] = value;
      if (value.includes('${{'))
        bound[key] = resolveScript(value, scope, (index, template) => deferred.push({ target: 'bound', path: [key, index], template }));
      continue;
    }
    config[key] = raw.includes(key)
      ? value
      : resolveTemplates(value, scope, {
          mask,
          onDeferred: (path, template) => deferred.push({ target: 'config', path: [key, ...path], template }),
        });
  }

  // What a reader sees of the call: the first call of the run, secrets masked (./attempts.ts).
  const record = ctx.steps[step.id] as StepRecord | undefined;
  if (record && record.run === activation.run && record.config === undefined) record.config = recordedConfig(config, deferred, scope);
  // Attempts are noted per call; the record keeps them when there was more than one.
  const attempts: StepAttempt[] = [];
  const itemIndex = extras.soleCall ? undefined : extras.itemIndex;

  // A forEach iteration is retried by the engine on its own, a failure result marked retryable too (../engine-rules).
  const iterationRetries =
    extras.iteration === true && step.errorHandling?.retryPolicy !== undefined && followsRule(ctx.input, 'for-each-engine-retries');
  const reentered = Object.keys(activation.via).some((edgeId) => env.topology.edges[edgeId]?.kind === 'back');
  // A kind or feature an operator's plugin declares (its pin; a kit stub's descriptor): ./operator-kinds.ts.
  const traits = inline ? undefined : operatorTraitsOf(env, pluginType);
  if (inline) {
    const inlineCall: InlineCall = {
      step,
      config,
      inputs,
      items: extras.item ? [extras.item] : extras.items,
      item: extras.item,
      scope,
      ctx,
      effects,
      hasPortEdge: (port) => env.topology.outgoing[step.id].some((edgeId) => env.topology.edges[edgeId].sourcePort === port),
      reentered,
    };
    try {
      return await withRetries(
        step.errorHandling?.retryPolicy,
        effects,
        () => trackedAttempt(effects, attempts, itemIndex, async () => inline(inlineCall), toStepError),
        { retryFailureResults: iterationRetries },
      );
    } finally {
      keepAttempts(record, attempts);
    }
  }
  // Templates that read a secret are evaluated by the activity; it gets the other roots they read.
  const deferredScope = scopeForDeferred(deferred, scope);
  // Temporal's retry policies have no jitter: with one (or for a forEach iteration), the engine retries (one attempt
  // per activity call).
  const retryPolicy = step.errorHandling?.retryPolicy;
  const engineRetries = jitterOf(retryPolicy) > 0 || iterationRetries;
  const timeoutMs = activityTimeoutMs(step);
  const activityCall: ActivityCall = {
    executionId: ctx.input.executionId,
    organizationId: ctx.input.organizationId,
    workflowId: ctx.input.workflowId,
    stepId: step.id,
    pluginType,
    ...pinnedVersion(ctx.input.definition, pluginType),
    config,
    inputs,
    ...(Object.keys(bound).length > 0 ? { bound } : {}),
    items: extras.item ? [extras.item] : extras.items,
    item: extras.item ?? batchItem,
    itemIndex: extras.itemIndex,
    timeoutMs,
    ...(extras.soleCall && isLight(step, pluginType, config, ctx.input) ? { light: { callKey: `${step.id}#${activation.run}` } } : {}),
    retryPolicy: toTemporalRetryPolicy(engineRetries ? undefined : retryPolicy),
    nodeState: reentered || traits?.nodeState === true ? ctx.nodeContext[step.id] : undefined,
    ...outputLimit(runLimitsOf(ctx.input).maxStepOutputBytes),
    ...(extras.returnValue ? { returnValue: true } : {}),
    ...(deferred.length > 0 ? { deferred } : {}),
    ...(deferredScope ? { scope: deferredScope } : {}),
    ...(deferred.length > 0 ? bindingsOf(ctx.input.definition) : {}),
  };
  // Each engine-run attempt says which it is (the host's own retries count from there: the kit's stubs see it).
  let result: PluginResult;
  try {
    result = await withRetries(
      engineRetries ? retryPolicy : undefined,
      effects,
      (attempt) =>
        trackedAttempt(
          effects,
          attempts,
          itemIndex,
          () => effects.callActivity(engineRetries ? { ...activityCall, attempt } : activityCall),
          toStepError,
        ),
      { retryFailureResults: iterationRetries },
    );
  } finally {
    keepAttempts(record, attempts);
  }
  if (result.nodeState === null) delete ctx.nodeContext[step.id];
  else if (result.nodeState !== undefined) ctx.nodeContext[step.id] = result.nodeState;
  for (const line of result.logs ?? [])
    effects.log({
      stepId: step.id,
      level: line.level,
      message: line.message,
      ...(line.metadata ? { metadata: line.metadata } : {}),
      timestamp: new Date(effects.now()).toISOString(),
    });
  const settled: PluginResult = { ...result, logs: undefined, nodeState: undefined, wait: undefined, attempt: undefined };
  if (traits?.kind === 'decider') return deciderResult(pluginType, settled, extras.item ? [extras.item] : extras.items);
  if (traits?.twoPhaseWait) return parkAfterSideEffect(env, step, pluginType, config, { ...settled, wait: result.wait });
  return settled;
}

/** The step's `timeout`, else its `metadata.executionTimeoutMs` (the older spelling), else the default. */
export function activityTimeoutMs(step: StepDefinition): number {
  return ownTimeoutMs(step) ?? DEFAULT_STEP_TIMEOUT_MS;
}

/** How long the step says it may take, when it says so (`timeout`, or the older `metadata.executionTimeoutMs`). */
function ownTimeoutMs(step: StepDefinition): number | undefined {
  const legacy = step.metadata?.executionTimeoutMs;
  return parseDuration(step.timeout) ?? (typeof legacy === 'number' && legacy > 0 ? legacy : undefined);
}

/**
 * A light step: a built-in short network call bounded by at most the run's light-step ceiling, made once by
 * its activation. It runs as a local activity (docs/architecture.md, "Light steps"); a longer bound, a heavy
 * plugin (code-exec), an operator's plugin and the calls of a fan-out, forEach or loop (which run side by
 * side) run as ordinary activities. The bound is the step's own `timeout` when it has one (the author's say),
 * else the plugin's bound on its call (an http-request's config `timeout`, default 30 s), so a step written
 * without a timeout is light; runs started before that rule compare the 5-minute default (never light).
 */
function isLight(step: StepDefinition, pluginType: string, config: Record<string, unknown>, input: StepEnv['ctx']['input']): boolean {
  const limits = runLimitsOf(input);
  const plugin = findPlugin(pluginType);
  if (!isBuiltInPlugin(pluginType) || plugin?.light !== true) return false;
  const callTimeout = followsRule(input, 'light-step-by-call-timeout') ? plugin.callTimeout : undefined;
  const boundMs =
    ownTimeoutMs(step) ?? (callTimeout ? (parseDuration(config[callTimeout.property]) ?? callTimeout.defaultMs) : DEFAULT_STEP_TIMEOUT_MS);
  return boundMs <= (limits.lightStepMaxTimeoutMs ?? 0);
}

/** The `secrets:` bindings that rename, when the definition has any (the activity loads the bound entries). */
function bindingsOf(definition: StepEnv['ctx']['input']['definition']): { secretBindings?: Record<string, string> } {
  const secretBindings = renamingBindings(definition);
  return secretBindings ? { secretBindings } : {};
}

/** The activity's output limit, when the run has one (older runs have none). */
function outputLimit(maxOutputBytes: number): { maxOutputBytes?: number } {
  return Number.isFinite(maxOutputBytes) ? { maxOutputBytes } : {};
}

export function itemsOf(result: PluginResult): Item[] {
  if (result.items) return result.items;
  return result.outputs ? [result.outputs] : [];
}

function finish(
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  record: StepRecord,
  result: PluginResult,
): { record: StepRecord; outcome: StepOutcome } {
  const at = iso(env.effects.now());
  record.completedAt = at;
  if (result.status === 'skipped') {
    record.status = 'skipped';
    // The run's record (started above) ends skipped, not another record beside it.
    env.effects.onEvent({
      type: 'step.skipped',
      stepId: step.id,
      at,
      run: record.run,
      ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    });
    return { record, outcome: { status: 'skipped' } };
  }
  if (result.status === 'failure') {
    record.status = 'failed';
    record.error = result.error ?? { code: 'STEP_FAILED', message: `step "${step.id}" failed` };
    // A failure may still say what it did (a forEach with continueOnError: `failed: n`).
    if (result.items || result.outputs) {
      record.items = itemsOf(result);
      record.outputs = record.items[0] ?? {};
    }
    // The run's log says why (the message is scrubbed of secrets where a secret was loaded: the activity's failure).
    env.effects.log({ stepId: step.id, level: 'error', message: `${record.error.code}: ${record.error.message}`, timestamp: at });
    env.effects.onEvent({ type: 'step.failed', stepId: step.id, run: activation.run, at, record });
    return { record, outcome: { status: 'failed', inputItems: activation.items } };
  }
  // A forEach step of rules 4 and later projected each iteration's output already (./for-each.ts).
  const projection = step.forEach && followsRule(env.ctx.input, 'for-each-projects-iterations') ? undefined : step.outputProjection;
  const projectItems = (items: Item[]) => (projection && projection.length > 0 ? items.map((item) => project(item, projection)) : items);
  const items = projectItems(itemsOf(result));
  const routed = result.metadata?.ports as Record<string, Item[]> | undefined;
  const ports: Record<string, Item[]> = routed
    ? Object.fromEntries(Object.entries(routed).map(([port, portItems]) => [port, projectItems(portItems)]))
    : Object.fromEntries((result.activePorts ?? ['default']).map((port) => [port, items]));
  record.status = 'completed';
  record.items = items;
  record.outputs = result.outputs && !result.items ? (items[0] ?? {}) : (result.outputs ?? items[0] ?? {});
  record.activePorts = Object.keys(ports);
  env.effects.onEvent({ type: 'step.completed', stepId: step.id, run: activation.run, at, record });
  return { record, outcome: { status: 'completed', ports } };
}

/** Log lines a failed activity plugin emitted travel in its failure's details; record them like a success's. */
function recordFailureLogs(env: StepEnv, stepId: string, error: unknown): void {
  const details = (error as { cause?: { details?: unknown } } | null)?.cause?.details;
  if (!Array.isArray(details)) return;
  for (const detail of details) {
    const lines = detail !== null && typeof detail === 'object' ? (detail as Record<string, unknown>)[PLUGIN_LOGS_DETAIL] : undefined;
    if (!Array.isArray(lines)) continue;
    for (const line of lines as Array<{ level?: unknown; message?: unknown }>) {
      const level = line.level === 'debug' || line.level === 'warn' || line.level === 'error' ? line.level : 'info';
      env.effects.log({
        stepId,
        level,
        message: typeof line.message === 'string' ? line.message : JSON.stringify(line.message ?? ''),
        timestamp: new Date(env.effects.now()).toISOString(),
      });
    }
  }
}

/** `signal.*` is in scope on the step right after a wait resumes. */
function signalFor(env: StepEnv, activation: Activation): ScopeExtras['signal'] {
  for (const edgeId of Object.keys(activation.via)) {
    const from = env.topology.edges[edgeId]?.from;
    if (from && env.ctx.signals[from]) return env.ctx.signals[from];
  }
  return undefined;
}

export function toStepError(error: unknown): StepError {
  if (error instanceof ExpressionError) return { code: error.code, message: error.message, retryable: false };
  const failure = error as { message?: string; type?: string; cause?: { message?: string; type?: string } };
  const cause = failure?.cause ?? failure;
  return { code: cause?.type ?? 'STEP_FAILED', message: cause?.message ?? String(error), retryable: false };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The version of an operator plugin the revision was validated against: the worker runs the step only with a compatible one. */
function pinnedVersion(definition: WorkflowDefinition, pluginType: string): { pluginVersion?: string } {
  const pinned = pinnedPluginOf(definition, pluginType);
  return pinned ? { pluginVersion: pinned.version } : {};
}
