/** The `execution_steps` table: the latest record of each step run, upserted by (execution, step, run) so a replayed batch changes nothing. */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionStepEntity } from '../entities/execution-step';
import { rowsOf, selectColumns } from '../sql';

export class ExecutionStepRepository extends Repository<ExecutionStepEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionStepEntity, manager);
  }

  /** One multi-row upsert; a step's first start time is kept. */
  async upsertRecords(executionId: string, records: Array<ExecutionStepEntity['record']>): Promise<void> {
    if (records.length === 0) return;
    await this.manager.query(
      `INSERT INTO execution_steps (execution_id, step_id, run, status, record, started_at, completed_at)
       SELECT $1, r->>'stepId', (r->>'run')::int, r->>'status', r, (r->>'startedAt')::timestamptz, (r->>'completedAt')::timestamptz
       FROM jsonb_array_elements($2::jsonb) AS r
       ON CONFLICT (execution_id, step_id, run) DO UPDATE
         SET status = EXCLUDED.status, record = EXCLUDED.record,
             started_at = COALESCE(execution_steps.started_at, EXCLUDED.started_at), completed_at = EXCLUDED.completed_at`,
      [executionId, JSON.stringify(records)],
    );
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
