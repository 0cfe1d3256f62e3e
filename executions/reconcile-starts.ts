/**
 * The start reconciler's sweep: repairs executions whose start was lost. The
 * API records an execution, then starts its Temporal workflow, then records
 * the run id (start-execution.ts); a process that dies in between leaves a
 * `running` row with no run, which an idempotent retry would report as
 * deduplicated forever. Every API process sweeps for such rows periodically
 * (the timer lives with the start-up code, startup/execution-reconciler.ts):
 * a row whose workflow exists gets its run id recorded; a row without one has
 * its workflow started exactly as the API would have; a row whose revision is
 * gone fails with START_LOST.
 *
 * Which rows are candidates (never sub-workflow children or cron ticks, whose
 * runs are owned by another workflow) is decided in ExecutionSweepRepository.findUnstarted.
 *
 * Several replicas may sweep the same rows at once, and a slow API start may
 * still be in flight: that is safe without locks. The workflow id is the
 * execution id and starts refuse a duplicate id (running or closed), so only
 * one start ever wins; the losers get WorkflowExecutionAlreadyStartedError and
 * record the winner's run id, the same value every party writes. Finishing a
 * lost start only updates a row that is still running.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Logger } from 'pino';
import type { ExecutionEntity } from '../db/entities/execution';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { ExecutionSweepRepository } from '../db/repositories/execution-sweep-repository';
import type { StartDeps } from './deps';
import { endRun } from './flow/end-run';
import { firstRunId, startOrFindRun } from './start-workflow';
import { recordedRunInput } from './workflow-input';

export type ReconcilerDeps = StartDeps & { logger: Logger };

export interface SweepOptions {
  /** Rows younger than this are left to the start still in flight (default 30 s). */
  graceMs?: number;
  /** Rows repaired per sweep at most (default 50); the rest wait for the next sweep. */
  batchSize?: number;
  /** Only this organization's rows (tests share one database). */
  organizationId?: string;
}

export interface SweepResult {
  /** The workflow existed: its run id was recorded. */
  recorded: string[];
  /** The workflow was started. */
  started: string[];
  /** The revision was gone: the execution failed with START_LOST. */
  lost: string[];
  /** Repair failed; the next sweep retries. */
  failed: string[];
}

export const DEFAULT_GRACE_MS = 30_000;
const DEFAULT_BATCH_SIZE = 50;

/** One sweep. Throws only when the candidates cannot be read; a row that cannot be repaired is logged and left for the next sweep. */
export async function sweepOnce(deps: ReconcilerDeps, options: SweepOptions = {}): Promise<SweepResult> {
  const rows = await new ExecutionSweepRepository(deps.dataSource.manager).findUnstarted({
    temporalNamespace: deps.temporal.options.namespace,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    limit: options.batchSize ?? DEFAULT_BATCH_SIZE,
    organizationId: options.organizationId,
  });
  const result: SweepResult = { recorded: [], started: [], lost: [], failed: [] };
  for (const row of rows) {
    try {
      const outcome = await repair(deps, row);
      result[outcome.action].push(row.id);
      deps.logger.info({ executionId: row.id, action: outcome.action, runId: outcome.runId }, 'execution start reconciled');
    } catch (error) {
      result.failed.push(row.id);
      deps.logger.warn({ err: error, executionId: row.id }, 'execution start could not be reconciled; the next sweep retries');
    }
  }
  return result;
}

async function repair(deps: ReconcilerDeps, row: ExecutionEntity): Promise<{ action: 'recorded' | 'started' | 'lost'; runId?: string }> {
  const executions = new ExecutionRepository(deps.dataSource.manager);
  const existing = await describedRunId(deps, row.id);
  if (existing !== undefined) {
    await executions.setTemporalRunId(row.id, existing);
    return { action: 'recorded', runId: existing };
  }
  // A child's nesting is not recorded: restarted here, it counts from 0 (its own children are still bounded).
  const input = await recordedRunInput(deps.dataSource, row, { publicBaseUrl: deps.publicBaseUrl, limits: deps.limits });
  if (!input) {
    await endRun({ dataSource: deps.dataSource, starts: deps }, row.id, 'failed', null, {
      type: 'START_LOST',
      message: `the execution was never started and revision ${row.revision} of its workflow no longer exists`,
    });
    return { action: 'lost' };
  }
  // Another replica, or the API's own start, may have won the race: its run is recorded instead.
  const { runId, started } = await startOrFindRun(deps, row, input);
  return { action: started ? 'started' : 'recorded', runId };
}

async function describedRunId(deps: ReconcilerDeps, executionId: string): Promise<string | undefined> {
  try {
    return await firstRunId(deps.temporal, executionId);
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}
