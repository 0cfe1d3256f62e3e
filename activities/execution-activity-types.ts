/**
 * Shapes of the execution activities' requests (types only). The activities'
 * own type is derived from their implementation (`ExecutionActivities` in
 * ./create-execution-activities); workflow code imports both with `import type`.
 */
import type { ActivityCall, LogEntryDraft, PluginResult, ScheduledStart, StepEvent, StepRecord } from '../workflows/engine';
import type { ChildRunRequest } from '../executions';
import type { RunProgress } from '../db/repositories/execution-progress-sql';

export type { RunProgress };

export interface ResolveVarsRequest {
  executionId: string;
  organizationId: string;
  workflowId: string;
  names: string[];
  /** Secrets the definition declares (`secrets:`): each must have a value, or the run fails before any step (SECRET_UNRESOLVED). */
  secrets?: string[];
}

export type NumberedLog = LogEntryDraft & { seq: number; stepSeq: number };

export interface EventBatch {
  executionId: string;
  organizationId: string;
  /** Position of the first event; events are numbered densely per execution by the workflow (the event stream's ids). */
  firstEventSeq: number;
  events: StepEvent[];
  /** Numbered densely by the workflow, per execution (`seq`) and per step (`stepSeq`): a retried batch writes nothing twice. */
  logs: NumberedLog[];
  /** The run's variables and waiting status, each when it changed since the previous batch (batches are written in order). */
  progress?: RunProgress;
  /** Records of steps still running whose fan-out progress (`metadata.fanOut`) changed since the previous batch. */
  liveSteps?: StepRecord[];
}

/** A light step's local activity: the call, and the step records batched since the last write (written with its result). */
export interface LightStepRequest {
  call: ActivityCall;
  batch?: EventBatch;
  /**
   * With `call.endsRun`: where the step's last records go on in the run's numbering (the workflow's batcher), for the
   * activity to write them and the run's end when the call completes the step.
   */
  end?: TailNumbering;
  /**
   * Scheduled in the run's first workflow task, which no worker ran before (its history is three events long:
   * a lost or failed attempt of that task adds to it): no earlier attempt of this call can have stored a result.
   */
  firstTask?: true;
}

/** The numbers the next event and log line of a run get (and the next log line of the step). */
export interface TailNumbering {
  firstEventSeq: number;
  logSeq: number;
  stepSeq: number;
}

export interface LightStepOutcome {
  result: PluginResult;
  /** False when the database was unavailable: the workflow writes the batch itself (its persistence activity retries). */
  batchWritten: boolean;
  /** The step's last records and the run's end (completed) were written with the call's result: the run is over. */
  endWritten?: boolean;
}

export interface FinishRequest {
  executionId: string;
  organizationId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** Position of the end event, right after the last step event. */
  eventSeq: number;
  outputs: Record<string, unknown>;
  error?: { type: string; message: string; stepId?: string };
  /** The run's last batch of records, written first (one local activity for both). */
  batch?: EventBatch;
  /** Answer how the run ended (a cancel of rules 5: its last light step may have written a completed end before). */
  askEnd?: boolean;
}

/** The prepareChild activity's request: the execution module's child run request. */
export type ChildPreparation = ChildRunRequest;

export interface ScheduledPreparation {
  start: ScheduledStart;
  /** The Temporal workflow id the schedule gave this run: it becomes the execution id. */
  executionId: string;
  runId: string;
  /** When the tick fired (ms); floored to the second it makes the idempotency key. */
  firedAt: number;
}
