/**
 * A retry of a failed execution (ExecutionInput.reuse): a step that completed in the failed run is not run
 * again; its recorded outputs are taken over, and the walk goes on from them to the step that failed and
 * whatever depends on it (docs/architecture.md, "Retry from the failed step").
 *
 * What is reused: the first activation of a step whose latest record in the failed run completed after
 * running once. Not reused, so run again:
 * - a step that ran several times (a loop, a back-edge): which of its runs fed what cannot be told from its
 *   latest record;
 * - a step whose per-item calls routed different items to different ports (its record keeps the items, not
 *   which port got which);
 * - `set-variable`: pure and in the workflow, it runs again on the reused outputs, so the run variables are
 *   rebuilt as the failed run built them (a variable written inside a loop is not counted twice).
 * A sequential `forEach` with `reduce` that is reused writes its accumulator from its recorded `result`. A step
 * that was skipped is decided again by the walk, from the reused outputs (the same conditions, the same answer).
 */
import type { Activation, Item, StepOutcome } from '../graph/walker';
import type { StepEnv, StepRecord } from './types';

/** Plugins that are run again rather than reused (see above). */
const RUN_AGAIN = new Set(['set-variable']);

/** The reused record of this activation, marked with the run it comes from, or undefined when the step runs. */
export function reusedRecord(env: StepEnv, activation: Activation): StepRecord | undefined {
  const reuse = env.ctx.input.reuse;
  const recorded = reuse?.steps[activation.stepId];
  if (!reuse || !recorded || activation.run !== 1 || recorded.status !== 'completed' || recorded.run !== 1) return undefined;
  if (RUN_AGAIN.has(env.ctx.input.definition.steps[activation.stepId]?.pluginType ?? '')) return undefined;
  if (recorded.metadata?.fanOut && recorded.activePorts.length > 1) return undefined;
  return { ...recorded, reusedFrom: reuse.from };
}

/** Records a reused step as completed (with the time it was taken over) and answers its outcome, as a run of it would. */
export function takeOver(env: StepEnv, activation: Activation, reused: StepRecord): { record: StepRecord; outcome: StepOutcome } {
  const { ctx, effects } = env;
  const step = ctx.input.definition.steps[activation.stepId];
  const at = new Date(effects.now()).toISOString();
  const record: StepRecord = { ...reused, run: activation.run, startedAt: at, completedAt: at };
  ctx.steps[record.stepId] = record;
  const outputs = record.outputs;
  // `signal.*` on the step after a reused wait: the signal it received, from its outputs.
  if (step?.type === 'wait' && typeof outputs.timedOut === 'boolean') {
    ctx.signals[record.stepId] = {
      timedOut: outputs.timedOut,
      ...(typeof outputs.name === 'string' ? { name: outputs.name } : {}),
      payload: outputs.payload,
      ...(typeof outputs.signalId === 'string' ? { signalId: outputs.signalId } : {}),
      ...(typeof outputs.receivedAt === 'string' ? { receivedAt: outputs.receivedAt } : {}),
    };
  }
  // A sequential forEach's accumulator, as its last iteration left it (for-each.ts).
  const reduce = step?.forEach?.reduce as { accumulator?: unknown } | undefined;
  if (reduce && step?.forEach?.parallel !== true && typeof reduce.accumulator === 'string' && 'result' in outputs)
    ctx.variables[reduce.accumulator] = outputs.result;
  effects.onEvent({ type: 'step.started', stepId: record.stepId, run: activation.run, at });
  effects.onEvent({ type: 'step.completed', stepId: record.stepId, run: activation.run, at, record });
  const ports: Record<string, Item[]> = Object.fromEntries(record.activePorts.map((port) => [port, record.items]));
  return { record, outcome: { status: 'completed', ports } };
}
