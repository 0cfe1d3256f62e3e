/**
 * The `execution_logs` table: numbered densely per execution (`seq`) and per
 * step (`stepSeq`) by the workflow, so every window is an index range scan and
 * the total is the last position plus one, with or without a step filter.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionLogEntity } from '../entities/execution-log';
import { deletedCount, rowsOf, selectColumns } from '../sql';
import { raw, sql, type Sql } from '../sql-builder';

/** A log line as the workflow reports it (positions assigned by the workflow). */
export interface LogWrite {
  seq: number;
  stepSeq: number;
  stepId: string;
  level: string;
  message: string;
  metadata?: Record<string, unknown>;
  timestamp: string;
}

/** The multi-row insert (also one part of a step batch: step-batch-statement.ts). */
export function insertLogsSql(executionId: unknown, logsJson: unknown): Sql {
  return sql`INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, metadata, logged_at)
    SELECT ${executionId}, (l->>'seq')::int, l->>'stepId', (l->>'stepSeq')::int, l->>'level', l->>'message', l->'metadata', (l->>'timestamp')::timestamptz
    FROM jsonb_array_elements(${logsJson}::jsonb) AS l
    ON CONFLICT DO NOTHING`;
}

export class ExecutionLogRepository extends Repository<ExecutionLogEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionLogEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_logs WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** One multi-row insert by position; lines already there (a replayed batch) are left alone. */
  async insertBatch(executionId: string, logs: LogWrite[]): Promise<void> {
    if (logs.length === 0) return;
    await rowsOf(this.manager, insertLogsSql(executionId, JSON.stringify(logs)));
  }

  /**
   * One window of logs, `[cursor - limit, cursor)` by position (all logs, or one
   * step's), oldest first within the window. Both the total and the window are
   * index lookups: positions are dense, so the total is the last position + 1.
   */
  async window(
    executionId: string,
    window: { limit: number; cursor?: number; stepId?: string },
  ): Promise<{ rows: ExecutionLogEntity[]; total: number; start: number }> {
    const byStep = window.stepId !== undefined;
    const position = raw(byStep ? 'step_seq' : 'seq');
    const filter = byStep ? sql`execution_id = ${executionId} AND step_id = ${window.stepId}` : sql`execution_id = ${executionId}`;
    const [last] = await rowsOf<{ last: number | null }>(
      this.manager,
      sql`SELECT max(${position}) AS last FROM execution_logs WHERE ${filter}`,
    );
    const total = last.last === null ? 0 : last.last + 1;
    const end = Math.min(window.cursor ?? total, total);
    const start = Math.max(0, end - window.limit);
    if (end <= start) return { rows: [], total, start };
    const rows = await rowsOf<ExecutionLogEntity>(
      this.manager,
      sql`SELECT ${raw(selectColumns(this.manager, ExecutionLogEntity))} FROM execution_logs
       WHERE ${filter} AND ${position} >= ${start} AND ${position} < ${end} ORDER BY ${position}`,
    );
    return { rows, total, start };
  }
}
