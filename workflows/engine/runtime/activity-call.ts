/**
 * Runs a resolved plugin call through an activity (an effectful or an operator's plugin): the activity's
 * call (its timeout, retry policy, light-step key, deferred templates and secret bindings), the engine's own
 * retries when Temporal's cannot express the policy, and the result settled back into the run (node state,
 * log lines, a decider's ports, a two-phase wait).
 */
import type { StepDefinition, WorkflowDefinition } from '../definition';
import { parseDuration } from '../durations';
import type { Activation } from '../graph/walker';
import { findPlugin, isBuiltInPlugin, pinnedPluginOf } from '../plugins';
import { scopeForDeferred } from '../templates';
import { runLimitsOf } from '../limits';
import { followsRule } from '../engine-rules';
import { renamingBindings } from '../secret-bindings';
import { toTemporalRetryPolicy } from './retry';
import { jitterOf, withRetries } from './retry-loop';
import { keepAttempts, trackedAttempt } from './attempts';
import { deciderResult, operatorTraitsOf, parkAfterSideEffect } from './operator-kinds';
import { toStepError } from './step-record';
import { lastStepEndOf } from './last-step-end';
import type { ResolvedCall } from './resolve-call';
import type { ActivityCall, PluginResult, StepEnv } from './types';

export const DEFAULT_STEP_TIMEOUT_MS = 5 * 60_000;

export async function runAsActivity(env: StepEnv, step: StepDefinition, activation: Activation, call: ResolvedCall): Promise<PluginResult> {
  const { ctx, effects } = env;
  const { pluginType, extras, config, deferred, bound, attempts, iterationRetries } = call;
  // A kind or feature an operator's plugin declares (its pin; a kit stub's descriptor): ./operator-kinds.ts.
  const traits = operatorTraitsOf(env, pluginType);
  // Templates that read a secret are evaluated by the activity; it gets the other roots they read.
  const deferredScope = scopeForDeferred(deferred, call.scope);
  // Temporal's retry policies have no jitter: with one (or for a forEach iteration), the engine retries (one attempt
  // per activity call).
  const retryPolicy = step.errorHandling?.retryPolicy;
  const engineRetries = jitterOf(retryPolicy) > 0 || iterationRetries;
  const timeoutMs = activityTimeoutMs(step);
  const light = extras.soleCall === true && isLight(step, pluginType, config, ctx.input);
  // The engine's own retries record each attempt: such a call never ends the run from its activity.
  const endsRun = engineRetries ? undefined : lastStepEndOf(env, step, activation, light);
  const activityCall: ActivityCall = {
    executionId: ctx.input.executionId,
    organizationId: ctx.input.organizationId,
    workflowId: ctx.input.workflowId,
    stepId: step.id,
    pluginType,
    ...pinnedVersion(ctx.input.definition, pluginType),
    config,
    inputs: call.inputs,
    ...(Object.keys(bound).length > 0 ? { bound } : {}),
    items: extras.item ? [extras.item] : extras.items,
    item: extras.item ?? call.batchItem,
    itemIndex: extras.itemIndex,
    timeoutMs,
    ...(light ? { light: { callKey: `${step.id}#${activation.run}` } } : {}),
    ...(endsRun ? { endsRun } : {}),
    retryPolicy: toTemporalRetryPolicy(engineRetries ? undefined : retryPolicy),
    nodeState: call.reentered || traits?.nodeState === true ? ctx.nodeContext[step.id] : undefined,
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
          call.itemIndex,
          () => effects.callActivity(engineRetries ? { ...activityCall, attempt } : activityCall),
          toStepError,
        ),
      { retryFailureResults: iterationRetries },
    );
  } finally {
    keepAttempts(call.record, attempts);
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
function bindingsOf(definition: WorkflowDefinition): { secretBindings?: Record<string, string> } {
  const secretBindings = renamingBindings(definition);
  return secretBindings ? { secretBindings } : {};
}

/** The activity's output limit, when the run has one (older runs have none). */
function outputLimit(maxOutputBytes: number): { maxOutputBytes?: number } {
  return Number.isFinite(maxOutputBytes) ? { maxOutputBytes } : {};
}

/** The version of an operator plugin the revision was validated against: the worker runs the step only with a compatible one. */
function pinnedVersion(definition: WorkflowDefinition, pluginType: string): { pluginVersion?: string } {
  const pinned = pinnedPluginOf(definition, pluginType);
  return pinned ? { pluginVersion: pinned.version } : {};
}
