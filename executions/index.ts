/**
 * The execution module: the life of an execution. Record a run and build its
 * workflow input, start it in Temporal, reconcile lost starts, prepare
 * sub-workflow children and cron ticks, deliver signals, start the recovery
 * runs of failed executions, bring open runs in line with Temporal. Used by api/,
 * activities/ and the start-up code; uses db/ and workflows/engine. Outside
 * callers import from here, never from the files behind it.
 */
export {
  OPEN_RUNS_GRACE_MS,
  checkOpenRun,
  checkOpenRuns,
  type OpenRunCheck,
  type OpenRunDeps,
  type OpenRunsSweepResult,
} from './check-open-runs';
export { deliver, deliverByCorrelation, DELIVERY_DEADLINE_MS, type Delivery } from './deliver-signal';
export { deliverAnswer, type AnswerOutcome } from './deliver-answer';
export type { StartDeps, WorkflowReach } from './deps';
export {
  dispatchFailure,
  recoveryIdempotencyKey,
  sweepFailures,
  type DispatchDeps,
  type FailurePayload,
  type FailureSweepOptions,
} from './dispatch-failure';
export {
  ChildOutOfReach,
  DuplicateTick,
  ExecutionNotRetryable,
  ExecutorUnavailable,
  FlowKeyInvalid,
  FlowLimitReached,
  FlowQueueFull,
  RetryTooLarge,
  TickQueued,
  RevisionNotRunnable,
  TreeBudgetExceeded,
} from './errors';
export { endRun, handOnSlot, type EndDeps } from './flow/end-run';
export { FLOW_QUEUE_DEFAULTS, FLOW_SWEEP_INTERVAL_MS } from './flow/limits';
export { cancelInTemporal, promoteNext, type PromoteDeps } from './flow/promote';
export { queuedGauge, sweepDue, sweepQueuedKeys, type FlowSweepOptions } from './flow/sweep';
export { newExecutionId } from './ids';
export { prepareChildRun, type ChildRunRequest, type PrepareDeps } from './prepare-child';
export { prepareScheduledRun, type ScheduledRunRequest } from './prepare-scheduled';
export { DEFAULT_GRACE_MS, sweepOnce, type ReconcilerDeps, type SweepOptions, type SweepResult } from './reconcile-starts';
export { recordRun, type NewRun } from './record-run';
export { RETRY_SEED_MAX_BYTES, rerunExecution, type RerunRequest } from './rerun-execution';
export {
  RetentionSweeper,
  type ExecutionRowCounts,
  type RetentionCounts,
  type RetentionSweepOptions,
  type RetentionSweepStep,
} from './retention-sweep';
export { settleChildren, type ChildrenSweepResult } from './settle-children';
export { startExecution, type StartRequest } from './start-execution';
export { firstRunId, startExecutionWorkflow } from './start-workflow';
export { executionInput, recordedRunInput, type RecordedRun } from './workflow-input';
