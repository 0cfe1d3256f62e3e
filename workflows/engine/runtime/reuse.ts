/**
 * A retry of a failed execution (ExecutionInput.reuse): a step that completed in the failed run is not run
 * again; its recorded outputs are taken over, and the walk goes on from them to the step that failed and
 * whatever depends on it (docs/architecture.md, "Retry from the failed step").
 *
 * What is reused: the first activation of a step whose latest record in the failed run completed after
 * running once (a step that ran several times, in a loop or through a back-edge, runs again: which of its
 * runs fed what cannot be told from its latest record), except a step whose per-item calls routed different
 * items to different ports (its record keeps the items, not which port got which). A step that was skipped
 * is decided again by the walk, from the reused outputs (the same conditions give the same answer). The run's
 * variables start as the failed run last recorded them, since the steps that set them are not run again.
 */
import type { Activation, Item, StepOutcome } from '../graph/walker';
import type { StepEnv, StepRecord } from './types';

/** The reused record of this activation, marked with the run it comes from, or undefined when the step runs. */
export function reusedRecord(env: StepEnv, activation: Activation): StepRecord | undefined {
  const reuse = env.ctx.input.reuse;
  const recorded = reuse?.steps[activation.stepId];
  if (!reuse || !recorded || activation.run !== 1 || recorded.status !== 'completed' || recorded.run !== 1) return undefined;
  if (recorded.metadata?.fanOut && recorded.activePorts.length > 1) return undefined;
  return { ...recorded, reusedFrom: reuse.from };
}

/** Records a reused step as completed (with the time it was taken over) and answers its outcome, as a run of it would. */
export function takeOver(env: StepEnv, activation: Activation, reused: StepRecord): { record: StepRecord; outcome: StepOutcome } {
  const { ctx, effects } = env;
  const at = new Date(effects.now()).toISOString();
  const record: StepRecord = { ...reused, run: activation.run, startedAt: at, completedAt: at };
  ctx.steps[record.stepId] = record;
  // `signal.*` on the step after a reused wait: the signal it received, from its outputs.
  const outputs = record.outputs;
  if (env.ctx.input.definition.steps[record.stepId]?.type === 'wait' && typeof outputs.timedOut === 'boolean') {
    ctx.signals[record.stepId] = {
      timedOut: outputs.timedOut,
      ...(typeof outputs.name === 'string' ? { name: outputs.name } : {}),
      payload: outputs.payload,
      ...(typeof outputs.signalId === 'string' ? { signalId: outputs.signalId } : {}),
      ...(typeof outputs.receivedAt === 'string' ? { receivedAt: outputs.receivedAt } : {}),
    };
  }
  effects.onEvent({ type: 'step.started', stepId: record.stepId, run: activation.run, at });
  effects.onEvent({ type: 'step.completed', stepId: record.stepId, run: activation.run, at, record });
  const ports: Record<string, Item[]> = Object.fromEntries(record.activePorts.map((port) => [port, record.items]));
  return { record, outcome: { status: 'completed', ports } };
}
