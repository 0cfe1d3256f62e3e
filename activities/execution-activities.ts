/**
 * The activities the execution workflow calls, as a type: workflow code imports
 * this file with `import type` only, and `createActivities` implements it.
 */
import type { ActivityCall, ExecutionInput, LogEntryDraft, PluginResult, ScheduledStart, StepEvent } from '../workflows/engine/runtime/types';

export interface ResolveVarsRequest {
  executionId: string;
  organizationId: string;
  workflowId: string;
  names: string[];
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
}

export interface FinishRequest {
  executionId: string;
  organizationId: string;
  status: 'completed' | 'failed' | 'cancelled';
  /** Position of the end event, right after the last step event. */
  eventSeq: number;
  outputs: Record<string, unknown>;
  error?: { type: string; message: string; stepId?: string };
}

export interface ChildPreparation {
  parentExecutionId: string;
  organizationId: string;
  workflowId: string;
  alias?: string;
  revision?: number;
  inputs: Record<string, unknown>;
  correlationKey?: string;
  childExecutionId: string;
}

export interface ScheduledPreparation {
  start: ScheduledStart;
  /** The Temporal workflow id the schedule gave this run: it becomes the execution id. */
  executionId: string;
  runId: string;
  /** When the tick fired (ms); floored to the second it makes the idempotency key. */
  firedAt: number;
}

export interface ExecutionActivities {
  /** Runs one effectful plugin call: resolves secrets late and scrubs them from the result. */
  callPlugin(call: ActivityCall): Promise<PluginResult>;
  /** Values of the `vars.*` a definition references, resolved once at start (never secrets). */
  resolveVars(request: ResolveVarsRequest): Promise<Record<string, unknown>>;
  /** Persists step events and log entries (idempotent by sequence number). */
  recordEvents(batch: EventBatch): Promise<void>;
  /** Writes the final status, outputs and error of the execution record. */
  finishExecution(request: FinishRequest): Promise<void>;
  /** Records the execution of a cron tick (one per tick) and returns its input. */
  prepareScheduledExecution(request: ScheduledPreparation): Promise<ExecutionInput>;
  /** Resolves a sub-workflow's revision and records the child execution; returns its input. */
  prepareChild(request: ChildPreparation): Promise<ExecutionInput>;
}
