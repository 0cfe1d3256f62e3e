/**
 * The Temporal workflow that runs one execution (workflow id = execution id).
 * It receives the normalized definition of an immutable revision, runs pure
 * steps inline through the engine runtime, effectful plugins as activities
 * with the step's timeout and retry policy, waits on signals workflow-side,
 * and runs sub-workflows as child workflows (./execution-effects). Step
 * records and logs are persisted in batches by a local activity whenever the
 * workflow is about to block (./execution-persistence), so a graph of pure
 * steps costs one round trip, not one per step.
 */
import {
  ApplicationFailure,
  CancellationScope,
  continueAsNew,
  isCancellation,
  setDefaultSignalHandler,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { followsRule, startExecution, type ExecutionInput, type ExecutionOutcome, type ScheduledStart } from './engine';
import { temporalEffects } from './execution-effects';
import {
  currentState,
  deliverSignal,
  isWaiting,
  recordCancelReason,
  releaseByPlainSignal,
  requireWaitingOn,
  type RunState,
} from './execution-handlers';
import { EventBatcher, persistence } from './execution-persistence';
import { resolveVarsOrFail } from './execution-vars';
import { LocalActivityLane } from './local-activity-lane';
import { OpenWaits, waitIds } from './execution-waits';
import { notifyOnOpen } from './approval-notice';
import { cancelReasonSignal, deliverSignalUpdate, stateQuery } from './messages';

/** Below Temporal's 10,240-event warning, with room for the steps in flight when it is checked. */
export const DEFAULT_HISTORY_EVENT_LIMIT = 8_000;

export async function runWorkflowExecution(start: ExecutionInput | ScheduledStart): Promise<Record<string, unknown>> {
  // A cron tick carries only where to find the revision; the execution is recorded and its input built by an activity.
  const input = 'definition' in start ? start : await prepareScheduledRun(start);
  const run: RunState = { phase: 'running' };
  // Every local activity after this point (persistence, light steps) runs in this lane, one at a time.
  const lane = new LocalActivityLane();
  const batcher = new EventBatcher(input, lane);
  const waits = new OpenWaits((event) => batcher.event(event), notifyOnOpen(input), waitIds(followsRule(input, 'wait-ids-by-sequence')));
  // Signal-with-start: the signal the run was started for waits for its wait (a continued run took it already).
  if (input.trigger.signal && !input.continued) waits.buffer(input.trigger.signal);

  setHandler(deliverSignalUpdate, deliverSignal(waits), { validator: requireWaitingOn(waits) });
  setHandler(cancelReasonSignal, recordCancelReason(run));
  setDefaultSignalHandler(releaseByPlainSignal(waits));
  setHandler(stateQuery, currentState(run, waits));

  // Log and event numbering, variables and the walk itself go on across continue-as-new.
  const vars = input.continued?.vars ?? (await resolveVarsOrFail(input, run, batcher.eventSeq));
  const historyLimit = input.historyEventLimit ?? DEFAULT_HISTORY_EVENT_LIMIT;
  const execution = (run.execution = startExecution(input, vars, temporalEffects(input, waits, batcher, lane), {
    carried: input.continued?.state,
    shouldContinueAsNew: () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength >= historyLimit,
  }));
  batcher.reportProgress(() => ({ variables: execution.ctx.variables, waiting: isWaiting(run, waits) }));
  batcher.reportFanOuts((stepId, stepRun) => {
    const record = execution.ctx.steps[stepId];
    return record?.run === stepRun && record.status === 'running' ? record.metadata?.fanOut : undefined;
  });
  const flusher = batcher.flushUntilFinished();

  let outcome: ExecutionOutcome;
  try {
    outcome = await Promise.race([execution.done, CancellationScope.current().cancelRequested]);
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Cancelled: record it (the scope no longer runs activities, so leave it), then end as cancelled.
    run.phase = 'cancelled';
    batcher.finish();
    let endedAs: string | undefined;
    await CancellationScope.nonCancellable(async () => {
      await flusher;
      await batcher.flush();
      // The last light step's call wrote the run's end (completed) before the cancel reached it: the run completed.
      if (batcher.endWrittenByStep) return;
      const ended = await persistence.finishExecution({
        executionId: input.executionId,
        organizationId: input.organizationId,
        status: 'cancelled',
        eventSeq: batcher.eventSeq,
        outputs: {},
        error: { type: 'CANCELLED', message: run.cancelReason ?? 'the execution was cancelled' },
        ...(followsRule(input, 'end-with-last-light-step') ? { askEnd: true } : {}),
      });
      endedAs = ended ? ended.endedAs : undefined;
    });
    if (batcher.endWrittenByStep) outcome = await execution.done;
    else if (endedAs === 'completed') {
      // Its last light step wrote a completed end in a workflow task that did not complete (the cancel came in
      // between; replayed, the cancel stopped the step's call before it could say so): the run completed, with no
      // outputs (such a run declares none).
      run.phase = 'completed';
      return {};
    } else throw error;
  }
  const continuing = outcome.status === 'continue' && outcome.carried !== undefined;
  // The last batch of records goes with the final write: one local activity instead of two (rules 1 wrote it apart).
  const lastBatchWithEnd = !continuing && followsRule(input, 'last-records-with-end');
  batcher.finish({ keepLast: lastBatchWithEnd });
  await flusher;
  if (continuing) {
    // History is long: go on in a fresh run with the same workflow id, carrying the walk (no step is in flight).
    return continueAsNew<typeof runWorkflowExecution>({ ...input, continued: { state: outcome.carried!, vars, ...batcher.numbering() } });
  }
  const status = outcome.status === 'failed' ? 'failed' : 'completed';
  run.phase = status;
  if (batcher.endWrittenByStep && status === 'completed' && Object.keys(outcome.outputs).length === 0) {
    // Written by the last step's local activity with its records (the ones pending here, computed alike):
    // no finish of its own (rule `end-with-last-light-step`).
    batcher.take();
    return outcome.outputs;
  }
  const lastBatch = lastBatchWithEnd ? batcher.take() : undefined;
  await persistence.finishExecution({
    executionId: input.executionId,
    organizationId: input.organizationId,
    status,
    eventSeq: batcher.eventSeq,
    outputs: outcome.outputs,
    error: outcome.error,
    ...(lastBatch ? { batch: lastBatch } : {}),
  });
  if (status === 'failed') {
    const error = outcome.error ?? { type: 'EXECUTION_FAILED', message: 'the execution failed' };
    throw ApplicationFailure.nonRetryable(error.message, error.type, { stepId: error.stepId ?? null });
  }
  return outcome.outputs;
}

/** A cron tick: records the execution (one per tick) and builds its input, by local activity. */
function prepareScheduledRun(start: ScheduledStart): Promise<ExecutionInput> {
  return persistence.prepareScheduledExecution({
    start,
    executionId: workflowInfo().workflowId,
    runId: workflowInfo().runId,
    firedAt: workflowInfo().runStartTime.getTime(),
  });
}
