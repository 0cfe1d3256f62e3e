/** The `execution_steps` table: the latest record of each step run, upserted by (execution, step, run) so a replayed batch changes nothing. */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionStepEntity } from '../entities/execution-step';
import { deletedCount, rowsOf, selectColumns } from '../sql';

/** The multi-row upsert, with its parameters' placeholders (also one part of a step batch: step-batch-statement.ts). */
export function upsertStepsSql(executionId: string, recordsJson: string): string {
  return `INSERT INTO execution_steps (execution_id, step_id, run, status, record, started_at, completed_at)
    SELECT ${executionId}, r->>'stepId', (r->>'run')::int, r->>'status', r, (r->>'startedAt')::timestamptz, (r->>'completedAt')::timestamptz
    FROM jsonb_array_elements(${recordsJson}::jsonb) AS r
    ON CONFLICT (execution_id, step_id, run) DO UPDATE
      SET status = EXCLUDED.status, record = EXCLUDED.record,
          started_at = COALESCE(execution_steps.started_at, EXCLUDED.started_at), completed_at = EXCLUDED.completed_at`;
}

export class ExecutionStepRepository extends Repository<ExecutionStepEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionStepEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_steps WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** One multi-row upsert; a step's first start time is kept. */
  async upsertRecords(executionId: string, records: Array<ExecutionStepEntity['record']>): Promise<void> {
    if (records.length === 0) return;
    await this.manager.query(upsertStepsSql('$1', '$2'), [executionId, JSON.stringify(records)]);
  }

  /** One page of the runs of every step (or of one step), in start order, and how many there are. */
  async pageOf(
    executionId: string,
    stepId: string | undefined,
    page: number,
    limit: number,
  ): Promise<{ rows: ExecutionStepEntity[]; total: number }> {
    const where = `WHERE execution_id = $1 AND ($2::text IS NULL OR step_id = $2)`;
    const [rows, [count]] = await Promise.all([
      rowsOf<ExecutionStepEntity>(
        this.manager,
        `SELECT ${selectColumns(this.manager, ExecutionStepEntity)} FROM execution_steps ${where}
         ORDER BY started_at NULLS LAST, step_id, run LIMIT $3 OFFSET $4`,
        [executionId, stepId ?? null, limit, (page - 1) * limit],
      ),
      rowsOf<{ total: number }>(this.manager, `SELECT count(*)::int AS total FROM execution_steps ${where}`, [executionId, stepId ?? null]),
    ]);
    return { rows, total: count.total };
  }

  /** The latest run of one step, if it ran. */
  async latestOf(executionId: string, stepId: string): Promise<ExecutionStepEntity | undefined> {
    const [row] = await rowsOf<ExecutionStepEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionStepEntity)} FROM execution_steps
       WHERE execution_id = $1 AND step_id = $2 ORDER BY run DESC LIMIT 1`,
      [executionId, stepId],
    );
    return row;
  }

  /** Every run of every step (or of one step), in start order. */
  async listOf(executionId: string, stepId?: string): Promise<ExecutionStepEntity[]> {
    return rowsOf<ExecutionStepEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionStepEntity)} FROM execution_steps
       WHERE execution_id = $1 AND ($2::text IS NULL OR step_id = $2) ORDER BY started_at NULLS LAST, step_id, run`,
      [executionId, stepId ?? null],
    );
  }
}
