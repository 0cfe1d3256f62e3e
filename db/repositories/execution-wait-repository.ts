/**
 * The `execution_waits` table: the open signal waits the workflow reported, so a
 * signal by correlation key finds its execution with one index lookup, and reads
 * of the execution show them without a Temporal query. A row is a hint (the
 * delivering update's validator decides); finished executions are filtered by status.
 */
import { In, Repository, type EntityManager } from 'typeorm';
import type { ExecutionEntity } from '../entities/execution';
import { ExecutionWaitEntity } from '../entities/execution-wait';
import { deletedCount, rowsOf } from '../sql';

/** A wait as the workflow reports it (times as ISO strings). */
export type WaitWrite = Omit<ExecutionWaitEntity, 'executionId' | 'since' | 'timeoutAt'> & { since: string; timeoutAt: string | null };

export class ExecutionWaitRepository extends Repository<ExecutionWaitEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionWaitEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_waits WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** One multi-row insert; waits already recorded (a replayed batch) are left alone. */
  async openAll(executionId: string, waits: WaitWrite[]): Promise<void> {
    if (waits.length === 0) return;
    await this.manager.query(
      `INSERT INTO execution_waits (execution_id, wait_id, step_id, signal_names, correlation_key, since, timeout_at, callback_url)
       SELECT $1, w->>'waitId', w->>'stepId', ARRAY(SELECT jsonb_array_elements_text(w->'signalNames')), w->>'correlationKey',
              (w->>'since')::timestamptz, (w->>'timeoutAt')::timestamptz, w->>'callbackUrl'
       FROM jsonb_array_elements($2::jsonb) AS w
       ON CONFLICT DO NOTHING`,
      [executionId, JSON.stringify(waits)],
    );
  }

  /** The open waits of an execution, oldest first (what its reads show). */
  openOf(executionId: string): Promise<ExecutionWaitEntity[]> {
    return this.find({ where: { executionId }, order: { since: 'ASC', waitId: 'ASC' } });
  }

  async closeAll(executionId: string, waitIds: string[]): Promise<void> {
    if (waitIds.length === 0) return;
    await this.delete({ executionId, waitId: In(waitIds) });
  }

  /**
   * Running executions of an organization with an open wait on `signalName` under
   * `correlationKey`, oldest wait first (at most 20).
   */
  async findCorrelated(
    organizationId: string,
    signalName: string,
    correlationKey: string,
    workflowId?: string,
  ): Promise<Array<Pick<ExecutionEntity, 'id' | 'temporalRunId'>>> {
    return rowsOf(
      this.manager,
      `SELECT DISTINCT ON (w.since, e.id) e.id, e.temporal_run_id AS "temporalRunId"
       FROM execution_waits w JOIN executions e ON e.id = w.execution_id
       WHERE w.correlation_key = $1 AND $2 = ANY(w.signal_names) AND e.organization_id = $3 AND e.status IN ('running', 'waiting')
         AND ($4::text IS NULL OR e.workflow_id = $4)
       ORDER BY w.since, e.id LIMIT 20`,
      [correlationKey, signalName, organizationId, workflowId ?? null],
    );
  }
}
