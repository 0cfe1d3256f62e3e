/**
 * A run that ends with a light step (engine rule `end-with-last-light-step`): once the step's call succeeds, the
 * run's end is known (no step after it, nothing else in flight, no declared outputs: completed, `{}`), so the
 * call's local activity writes the step's last records and the end in one statement, and the workflow completes
 * without a finish local activity of its own. Here, pure: when a call qualifies, and the records the workflow
 * settles after such a call (its log lines, the step's completed record), computed by the same code
 * (./activity-call.ts, ./step-record.ts) so the activity writes what the workflow would have written.
 */
import type { StepDefinition } from '../definition';
import { followsRule } from '../engine-rules';
import { runLimitsOf } from '../limits';
import type { Activation } from '../graph/walker';
import { truncateUtf8 } from './sizes';
import { boundOutput, finish } from './step-record';
import type { LastStepEnd, LogEntryDraft, PluginResult, StepEnv, StepEvent, StepRecord } from './types';

export type { LastStepEnd };

/** The step's last records when its call ended the run. */
export interface LastStepTail {
  events: StepEvent[];
  logs: LogEntryDraft[];
}

/**
 * Whether this call, when it succeeds, ends the run: a light sole call of a step with nothing after it (no
 * edge out, not even an error edge), nothing else in flight, and a run without declared outputs.
 */
export function lastStepEndOf(env: StepEnv, step: StepDefinition, activation: Activation, light: boolean): LastStepEnd | undefined {
  const input = env.ctx.input;
  if (!light || step.forEach || step.loop || !followsRule(input, 'end-with-last-light-step')) return undefined;
  if ((env.topology.outgoing[step.id]?.length ?? 1) > 0 || Object.keys(input.definition.outputs ?? {}).length > 0) return undefined;
  if (env.alone?.() !== true) return undefined;
  const record = env.ctx.steps[step.id];
  if (!record || record.status !== 'running') return undefined;
  const maxLogMessageBytes = runLimitsOf(input).maxLogMessageBytes;
  return {
    record: JSON.parse(JSON.stringify(record)) as StepRecord,
    run: activation.run,
    ...(step.outputProjection ? { outputProjection: step.outputProjection } : {}),
    ...(Number.isFinite(maxLogMessageBytes) ? { maxLogMessageBytes } : {}),
  };
}

/**
 * The records the workflow settles after the call, at `at`, when the result completes the step in one attempt
 * (a retried call lists its attempts, a failure or an output over `maxOutputBytes` fails the step: then the
 * workflow ends the run itself). Undefined otherwise.
 */
export function lastStepTail(
  end: LastStepEnd,
  stepId: string,
  result: PluginResult,
  at: string,
  maxOutputBytes = Number.POSITIVE_INFINITY,
): LastStepTail | undefined {
  if (result.status !== 'success' || result.attempt !== undefined || result.wait !== undefined || result.nodeState !== undefined)
    return undefined;
  const events: StepEvent[] = [];
  const logs: LogEntryDraft[] = [];
  const log = (entry: LogEntryDraft) =>
    logs.push(end.maxLogMessageBytes === undefined ? entry : { ...entry, message: truncateUtf8(entry.message, end.maxLogMessageBytes) });
  for (const line of result.logs ?? [])
    log({ stepId, level: line.level, message: line.message, ...(line.metadata ? { metadata: line.metadata } : {}), timestamp: at });
  const settled = boundOutput(maxOutputBytes, stepId, {
    ...result,
    logs: undefined,
    nodeState: undefined,
    wait: undefined,
    attempt: undefined,
  });
  // finish() reads the time, the run's rules (only for a forEach step: never here) and where its records go.
  const env = { ctx: { input: {} }, effects: { now: () => Date.parse(at), onEvent: (event: StepEvent) => events.push(event), log } };
  const step = { id: stepId, ...(end.outputProjection ? { outputProjection: end.outputProjection } : {}) } as StepDefinition;
  const { outcome } = finish(env as unknown as StepEnv, step, { run: end.run } as Activation, { ...end.record }, settled);
  return outcome.status === 'completed' ? { events, logs } : undefined;
}
