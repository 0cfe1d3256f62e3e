/**
 * The `execution_events` table: step, wait and end events numbered densely by
 * the workflow (`seq`, the Server-Sent Events id), one row per written batch
 * (its first event in `type` and `data`, the ones after it in `more`). A reader
 * takes them in order without gaps, so a batch committing late is never skipped,
 * and a replayed batch inserts nothing twice (the same first number).
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEventEntity, type StreamEventData } from '../entities/execution-event';
import { rowsOf, selectColumns } from '../sql';

/** One event of the stream, as read (the rows' batches taken apart). */
export type ExecutionEvent = Pick<ExecutionEventEntity, 'executionId' | 'seq' | 'type' | 'data' | 'createdAt'>;

/** The batch insert, with its parameters' placeholders (also one part of a step batch: step-batch-statement.ts). */
export function insertEventsSql(executionId: string, firstSeq: string, eventsJson: string): string {
  return `INSERT INTO execution_events (execution_id, seq, type, data, more)
    SELECT ${executionId}, ${firstSeq}::int, e->0->>'type', e->0->'data', CASE WHEN jsonb_array_length(e) > 1 THEN e - 0 END
    FROM (SELECT ${eventsJson}::jsonb AS e) AS batch
    ON CONFLICT DO NOTHING`;
}

/** The number after the last recorded event of the execution `$1` (0 when it has none). */
export const NEXT_EVENT_SEQ_SQL = `(SELECT COALESCE(max(seq + COALESCE(jsonb_array_length(more), 0)) + 1, 0) FROM execution_events WHERE execution_id = $1)`;

export class ExecutionEventRepository extends Repository<ExecutionEventEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEventEntity, manager);
  }

  /** Events numbered from `firstSeq` in the given order, one row; a batch already there is left alone. */
  async insertBatch(executionId: string, firstSeq: number, events: StreamEventData[]): Promise<void> {
    if (events.length === 0) return;
    await this.manager.query(insertEventsSql('$1', '$2', '$3'), [executionId, firstSeq, JSON.stringify(events)]);
  }

  /**
   * The events right after `afterSeq`, in order and without gaps: a batch that
   * has not committed yet ends the list, so a reader never skips past it.
   */
  async after(executionId: string, afterSeq: number, limit = 500): Promise<ExecutionEvent[]> {
    const columns = selectColumns(this.manager, ExecutionEventEntity);
    // The row holding `afterSeq` (its batch may go on past it), then the rows after it.
    const rows = await rowsOf<ExecutionEventEntity>(
      this.manager,
      `(SELECT ${columns} FROM execution_events WHERE execution_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1)
       UNION ALL
       (SELECT ${columns} FROM execution_events WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT ${limit})
       ORDER BY seq`,
      [executionId, afterSeq],
    );
    const contiguous: ExecutionEvent[] = [];
    for (const row of rows) {
      const batch = [{ type: row.type, data: row.data }, ...(row.more ?? [])];
      for (const [i, event] of batch.entries()) {
        const seq = row.seq + i;
        if (seq <= afterSeq + contiguous.length) continue;
        if (seq !== afterSeq + 1 + contiguous.length || contiguous.length >= limit) return contiguous;
        contiguous.push({ executionId: row.executionId, seq, type: event.type, data: event.data, createdAt: row.createdAt });
      }
    }
    return contiguous;
  }
}
