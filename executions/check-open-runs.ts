/**
 * The open-runs sweep: brings open executions in line with Temporal, so no run
 * says `running` for good without a reason. Reads never ask Temporal; this sweep
 * does, at a bounded cost, and records what it saw in PostgreSQL:
 *
 * - a run Temporal has closed (cancelled, terminated, timed out, failed, or gone
 *   with its history) while its row is open: the row is finished as Temporal
 *   ended it (ExecutionRepository.finish writes only over an open row, so a
 *   workflow that records its own end first wins). Retention then treats it as
 *   any ended execution.
 * - a run whose workflow task keeps failing (an engine bug, non-determinism
 *   after an upgrade, a payload the converter rejects): Temporal retries such a
 *   task for ever and the run makes no progress. The row's `run_health` says so
 *   (with the failure Temporal recorded), until a later look sees it well.
 *
 * Cost: each pass describes at most `batchSize` runs (default 50) — open rows
 * older than `graceMs` not looked at for `graceMs`, least recently checked first
 * — plus one short history read (the newest events) per run found failing or
 * closed. Several replicas may sweep at once: every write is idempotent.
 * The cancel and terminate routes call checkOpenRun for a run Temporal says is
 * over, and answer with what it recorded.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { endRun } from './flow/end-run';
import { temporal as proto } from '@temporalio/proto';
import type { ExecutionEntity, ExecutionStatus, RunHealth } from '../db/entities/execution';
import { ExecutionSweepRepository } from '../db/repositories/execution-sweep-repository';
import type { ReconcilerDeps, SweepOptions } from './reconcile-starts';

/** Short: a workflow task failing from the run's first task on is reported within a pass or two. */
export const OPEN_RUNS_GRACE_MS = 15_000;
const DEFAULT_BATCH_SIZE = 50;
/** How old a row whose run Temporal does not know must be before it is settled as RUN_LOST. */
export const RUN_LOST_AFTER_MS = 10 * 60_000;
/** Newest history events read to find the failure of a workflow task or the close event. */
const HISTORY_TAIL_EVENTS = 20;
const MESSAGE_MAX_CHARS = 1_000;

export type OpenRunDeps = Pick<ReconcilerDeps, 'dataSource' | 'temporal'> & Partial<Pick<ReconcilerDeps, 'logger'>>;

export type OpenRunCheck =
  | { kind: 'well' }
  | { kind: 'failing'; health: RunHealth; newly: boolean }
  | { kind: 'settled'; status: ExecutionStatus }
  /** Temporal has no run, and the row has none recorded: the start or children sweep owns it. */
  | { kind: 'left' };

export interface OpenRunsSweepResult {
  well: string[];
  failing: string[];
  /** Failing since this pass (they were well, or not checked, before). */
  newlyFailing: string[];
  /** Finished here, with the status Temporal ended them with. */
  settled: Array<{ id: string; status: ExecutionStatus }>;
  left: string[];
  /** Temporal could not answer; the next pass retries. */
  failed: string[];
}

export async function checkOpenRuns(deps: OpenRunDeps, options: SweepOptions = {}): Promise<OpenRunsSweepResult> {
  const rows = await new ExecutionSweepRepository(deps.dataSource.manager).findOpenToCheck({
    temporalNamespace: deps.temporal.options.namespace,
    graceMs: options.graceMs ?? OPEN_RUNS_GRACE_MS,
    limit: options.batchSize ?? DEFAULT_BATCH_SIZE,
    organizationId: options.organizationId,
  });
  const result: OpenRunsSweepResult = { well: [], failing: [], newlyFailing: [], settled: [], left: [], failed: [] };
  for (const row of rows) {
    try {
      const check = await checkOpenRun(deps, row);
      if (check.kind === 'settled') result.settled.push({ id: row.id, status: check.status });
      else if (check.kind === 'failing') {
        result.failing.push(row.id);
        if (check.newly) result.newlyFailing.push(row.id);
      } else result[check.kind].push(row.id);
    } catch (error) {
      result.failed.push(row.id);
      deps.logger?.warn({ err: error, executionId: row.id }, 'open execution could not be checked in Temporal; the next sweep retries');
    }
  }
  return result;
}

/** Looks at one open execution's run in Temporal and records what it found (see the file comment). */
export async function checkOpenRun(deps: OpenRunDeps, row: ExecutionEntity): Promise<OpenRunCheck> {
  const sweep = new ExecutionSweepRepository(deps.dataSource.manager);
  let described;
  try {
    // By workflow id alone: the latest run of the chain (continued as new, or reset).
    described = await deps.temporal.workflow.getHandle(row.id).describe();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    // Never started (the start reconciler's), or a child its parent has yet to start (the children sweep's). A run
    // Temporal knew drops out of it only once closed past its retention, or with Temporal's data (a dev server
    // restarted without its file): a young row is given time, so a passing doubt never ends a live run.
    const young = Date.now() - row.createdAt.getTime() < RUN_LOST_AFTER_MS;
    if (row.temporalRunId === null || row.parentExecutionId !== null || young) {
      await sweep.markChecked(row.id, row.runHealth);
      return { kind: 'left' };
    }
    const error_ = { type: 'RUN_LOST', message: 'Temporal no longer knows this run: it ended and its history was removed' };
    return settle(deps, row, 'terminated', error_);
  }
  const status = described.status.name;
  if (status === 'RUNNING' || status === 'PAUSED') {
    const task = described.raw.pendingWorkflowTask;
    const attempts = task?.attempt ?? 1;
    if (attempts < 2) {
      await sweep.markChecked(row.id, null);
      if (row.runHealth) deps.logger?.info({ executionId: row.id }, 'workflow task of the execution no longer fails');
      return { kind: 'well' };
    }
    const failure = await lastTaskFailure(deps, row.id, described.runId);
    const health: RunHealth = {
      workflowTaskFailing: true,
      attempts,
      since: row.runHealth?.since ?? timestampIso(task?.originalScheduledTime ?? task?.scheduledTime) ?? new Date().toISOString(),
      message: failure.message,
      ...(failure.cause ? { cause: failure.cause } : {}),
      checkedAt: new Date().toISOString(),
    };
    await sweep.markChecked(row.id, health);
    const newly = !row.runHealth;
    if (newly) {
      deps.logger?.warn(
        { executionId: row.id, workflowId: row.workflowId, attempts, cause: failure.cause, failure: failure.message },
        'workflow task of the execution keeps failing: the run makes no progress',
      );
    }
    return { kind: 'failing', health, newly };
  }
  const ended = await closeOf(deps, row.id, described.runId, status);
  if (!ended) {
    await sweep.markChecked(row.id, row.runHealth);
    return { kind: 'left' };
  }
  return settle(deps, row, ended.status, ended.error);
}

async function settle(
  deps: OpenRunDeps,
  row: ExecutionEntity,
  status: ExecutionStatus,
  error: { type: string; message: string } | null,
): Promise<OpenRunCheck> {
  // A completed run whose row lost only its status keeps the outputs it recorded.
  // A slot it held goes to the next queued run by the flow sweep that follows this one (startup/execution-reconciler.ts).
  await endRun({ dataSource: deps.dataSource }, row.id, status, status === 'completed' ? row.outputs : null, error);
  deps.logger?.warn({ executionId: row.id, status, error }, 'execution closed in Temporal without recording its end: settled');
  return { kind: 'settled', status };
}

/** The status and error a closed run's row gets, from Temporal's status and the run's close event. */
async function closeOf(
  deps: OpenRunDeps,
  executionId: string,
  runId: string,
  status: string,
): Promise<{ status: ExecutionStatus; error: { type: string; message: string } | null } | undefined> {
  const close = (await historyTail(deps, executionId, runId, 1))[0];
  const failed = close?.workflowExecutionFailedEventAttributes?.failure?.message;
  const reason = close?.workflowExecutionTerminatedEventAttributes?.reason;
  const note = 'in Temporal; the run did not record its end';
  switch (status) {
    case 'CANCELLED':
      return { status: 'cancelled', error: { type: 'CANCELLED', message: `cancelled ${note}` } };
    case 'TERMINATED':
      return { status: 'terminated', error: { type: 'TERMINATED', message: reason ? clip(reason) : `terminated ${note}` } };
    case 'TIMED_OUT':
      return { status: 'failed', error: { type: 'TIMED_OUT', message: `timed out ${note}` } };
    case 'FAILED':
      return { status: 'failed', error: { type: 'WORKFLOW_FAILED', message: failed ? clip(failed) : `failed ${note}` } };
    case 'COMPLETED':
      return { status: 'completed', error: null };
    default:
      // CONTINUED_AS_NEW is never the latest run of a chain; anything else is left for a later look.
      return undefined;
  }
}

/** The failure Temporal recorded for the run's failing workflow task (it records the first of a series). */
async function lastTaskFailure(deps: OpenRunDeps, executionId: string, runId: string): Promise<{ message: string; cause?: string }> {
  const events = await historyTail(deps, executionId, runId, HISTORY_TAIL_EVENTS);
  const failed = events.find((event) => event.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes;
  if (!failed) return { message: 'the workflow task fails on every attempt (Temporal recorded no failure in its newest events)' };
  const cause = failed.cause ? proto.api.enums.v1.WorkflowTaskFailedCause[failed.cause] : undefined;
  return {
    message: clip(failed.failure?.message ?? 'the workflow task failed'),
    ...(cause ? { cause: String(cause).replace(/^WORKFLOW_TASK_FAILED_CAUSE_/, '') } : {}),
  };
}

async function historyTail(deps: OpenRunDeps, executionId: string, runId: string, events: number) {
  const page = await deps.temporal.workflowService.getWorkflowExecutionHistoryReverse({
    namespace: deps.temporal.options.namespace,
    execution: { workflowId: executionId, runId },
    maximumPageSize: events,
  });
  return page.history?.events ?? [];
}

function timestampIso(at: { seconds?: unknown; nanos?: number | null } | null | undefined): string | undefined {
  if (!at || at.seconds === undefined || at.seconds === null) return undefined;
  const ms = Number(at.seconds) * 1000 + Math.floor((at.nanos ?? 0) / 1e6);
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : undefined;
}

const clip = (text: string) => (text.length > MESSAGE_MAX_CHARS ? `${text.slice(0, MESSAGE_MAX_CHARS)}…` : text);
