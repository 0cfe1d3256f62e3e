/**
 * The `execution_events` table: step, wait and end events numbered densely by
 * the workflow (`seq`, the Server-Sent Events id). A reader takes them in order
 * without gaps, so a batch committing late is never skipped, and a replayed
 * batch inserts nothing twice.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEventEntity } from '../entities/execution-event';
import { deletedCount, rowsOf, selectColumns } from '../sql';

/** The batch insert, with its parameters' placeholders (also one part of a step batch: step-batch-statement.ts). */
export function insertEventsSql(executionId: string, firstSeq: string, eventsJson: string): string {
  return `INSERT INTO execution_events (execution_id, seq, type, data)
    SELECT ${executionId}, ${firstSeq}::int + (t.n - 1)::int, t.e->>'type', t.e->'data' FROM jsonb_array_elements(${eventsJson}::jsonb) WITH ORDINALITY AS t(e, n)
    ON CONFLICT DO NOTHING`;
}

export class ExecutionEventRepository extends Repository<ExecutionEventEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEventEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_events WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** Events numbered from `firstSeq` in the given order, one multi-row insert; positions already there are left alone. */
  async insertBatch(executionId: string, firstSeq: number, events: Array<Pick<ExecutionEventEntity, 'type' | 'data'>>): Promise<void> {
    if (events.length === 0) return;
    await this.manager.query(insertEventsSql('$1', '$2', '$3'), [executionId, firstSeq, JSON.stringify(events)]);
  }

  /**
   * The events right after `afterSeq`, in order and without gaps: a batch that
   * has not committed yet ends the list, so a reader never skips past it.
   */
  async after(executionId: string, afterSeq: number, limit = 500): Promise<ExecutionEventEntity[]> {
    const rows = await rowsOf<ExecutionEventEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEventEntity)} FROM execution_events
       WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT ${limit}`,
      [executionId, afterSeq],
    );
    const contiguous: ExecutionEventEntity[] = [];
    for (const row of rows) {
      if (row.seq !== afterSeq + 1 + contiguous.length) break;
      contiguous.push(row);
    }
    return contiguous;
  }
}
