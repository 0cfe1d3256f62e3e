/**
 * Runs one activation of one step: its condition, `forEach` or `loop`, the items model
 * (`each` fans out per item with bounded parallelism, `all` gets the batch), and each
 * plugin call, resolved (./resolve-call.ts) and run inline in the workflow
 * (./inline-call.ts) or through an activity (./activity-call.ts). Returns the outcome
 * the walker settles, with the step record (./step-record.ts).
 */
import type { StepDefinition } from '../definition';
import { evaluateExpression, isTruthy, type EvaluationScope } from '../evaluate';
import { unwrapRaw } from '../expressions';
import type { Activation, StepOutcome } from '../graph/walker';
import { findPlugin, pinnedPluginOf } from '../plugins';
import { stepItemMode } from '../item-scope';
import { runLimitsOf } from '../limits';
import { mapLimit } from './concurrency';
import { stepScope } from './context';
import type { Item, PluginResult, ScopeExtras, StepEnv, StepRecord } from './types';
import { runForEach } from './for-each';
import { runLoop } from './loop';
import { reusedRecord, takeOver } from './reuse';
import { resolveCall, type CallExtras } from './resolve-call';
import { runInline } from './inline-call';
import { runAsActivity } from './activity-call';
import { boundOutput, finish, iso, itemsOf, recordFailureLogs, toStepError } from './step-record';

export const DEFAULT_PARALLELISM = 5;

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
  return finish(env, step, activation, record, boundOutput(runLimitsOf(env.ctx.input).maxStepOutputBytes, step.id, result));
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
export async function callPlugin(env: StepEnv, step: StepDefinition, activation: Activation, extras: CallExtras): Promise<PluginResult> {
  if (step.type === 'passthrough' || (!step.pluginType && step.type !== 'wait'))
    return { status: 'success', items: extras.item ? [extras.item] : extras.items };
  const call = resolveCall(env, step, activation, extras);
  if (call.inline) return runInline(env, step, call, call.inline);
  return runAsActivity(env, step, activation, call);
}

/** `signal.*` is in scope on the step right after a wait resumes. */
function signalFor(env: StepEnv, activation: Activation): ScopeExtras['signal'] {
  for (const edgeId of Object.keys(activation.via)) {
    const from = env.topology.edges[edgeId]?.from;
    if (from && env.ctx.signals[from]) return env.ctx.signals[from];
  }
  return undefined;
}
