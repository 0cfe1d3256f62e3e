/**
 * The `execution_events` table: step, wait and end events numbered densely by
 * the workflow (`seq`, the Server-Sent Events id), one row per written batch
 * (its first event in `type` and `data`, the ones after it in `more`), a step
 * event whose data its step run's row holds stored as a reference to that row
 * (../entities/execution-event.ts). A reader takes them in order without gaps,
 * so a batch committing late is never skipped, and a replayed batch inserts
 * nothing twice (the same first number).
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEventEntity, type StreamEventData } from '../entities/execution-event';
import { deletedCount, isoSql, poolQuery, rowsOf } from '../sql';
import { sql, type Sql } from '../sql-builder';
import { DEFAULT_PORTS } from './execution-step-repository';

/** One event of the stream, as read (the rows' batches taken apart, references to step rows resolved). */
export interface ExecutionEvent {
  executionId: string;
  seq: number;
  type: string;
  data: Record<string, unknown>;
  createdAt: Date;
}

/** The events as stored: whole (`{type, data}`), or a step event as `[type, stepId, run]`. */
export function encodeEvents(events: StreamEventData[]): string {
  return JSON.stringify(events.map(({ type, data, fromStep }) => (fromStep ? [type, data.stepId, data.run] : { type, data })));
}

/** The batch insert of `encodeEvents`'s JSON (also one part of a step batch: step-batch-statement.ts). */
export function insertEventsSql(executionId: unknown, firstSeq: unknown, eventsJson: unknown): Sql {
  return sql`INSERT INTO execution_events (execution_id, seq, type, data, more)
    SELECT ${executionId}, ${firstSeq}::int,
      CASE WHEN jsonb_typeof(e->0) = 'array' THEN e->0->>0 ELSE e->0->>'type' END,
      CASE WHEN jsonb_typeof(e->0) = 'array' THEN (e->0) - 0 ELSE e->0->'data' END,
      CASE WHEN jsonb_array_length(e) > 1 THEN e - 0 END
    FROM (SELECT ${eventsJson}::jsonb AS e) AS batch
    ON CONFLICT DO NOTHING`;
}

/** The number after the last recorded event of the execution (0 when it has none). */
export function nextEventSeqSql(executionId: unknown): Sql {
  return sql`(SELECT COALESCE(max(seq + COALESCE(jsonb_array_length(more), 0)) + 1, 0) FROM execution_events WHERE execution_id = ${executionId})`;
}

/** A step event's data from its step run's row `s` (`s.record` as stored: it keeps `error`, and `activePorts` unless default). */
const STEP_EVENT_DATA_SQL = `CASE WHEN ev.event->>0 = 'step.started'
      THEN jsonb_build_object('stepId', s.step_id, 'run', s.run, 'at', ${isoSql('s.started_at')})
      ELSE jsonb_build_object('stepId', s.step_id, 'run', s.run, 'at', ${isoSql('s.completed_at')}, 'status', s.status,
        'activePorts', COALESCE(s.record->'activePorts', ${DEFAULT_PORTS}), 'error', COALESCE(s.record->'error', 'null'::jsonb)) END`;

/** Events a read answers at most ({@link ExecutionEventRepository.after}); a full page may have more behind it. */
export const EVENTS_PAGE = 500;

export class ExecutionEventRepository extends Repository<ExecutionEventEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEventEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_events WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** Events numbered from `firstSeq` in the given order, one row; a batch already there is left alone. */
  async insertBatch(executionId: string, firstSeq: number, events: StreamEventData[]): Promise<void> {
    if (events.length === 0) return;
    await rowsOf(this.manager, insertEventsSql(executionId, firstSeq, encodeEvents(events)));
  }

  /**
   * The events right after `afterSeq`, in order and without gaps: a batch that
   * has not committed yet ends the list, so a reader never skips past it.
   */
  async after(executionId: string, afterSeq: number, limit = EVENTS_PAGE): Promise<ExecutionEvent[]> {
    // The row holding `afterSeq` (its batch may go on past it), then the rows after it, taken apart. On the pool, as a
    // prepared statement: an event stream runs it on every notification.
    const rows = await poolQuery<{ seq: number; type: string; data: Record<string, unknown>; createdAt: Date }>(
      this.manager,
      'events-after',
      `WITH batches AS (
         (SELECT * FROM execution_events WHERE execution_id = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1)
         UNION ALL
         (SELECT * FROM execution_events WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT $3)
       ),
       ev AS (
         SELECT b.seq + e.n::int - 1 AS seq, b.created_at, e.event
         FROM batches b,
           jsonb_array_elements(
             CASE WHEN jsonb_typeof(b.data) = 'array' THEN jsonb_build_array(jsonb_build_array(b.type) || b.data)
               ELSE jsonb_build_array(jsonb_build_object('type', b.type, 'data', b.data)) END || COALESCE(b.more, '[]'::jsonb)
           ) WITH ORDINALITY AS e(event, n)
       )
       SELECT ev.seq, ev.created_at AS "createdAt",
         CASE WHEN jsonb_typeof(ev.event) = 'array' THEN ev.event->>0 ELSE ev.event->>'type' END AS type,
         CASE WHEN jsonb_typeof(ev.event) = 'array' THEN ${STEP_EVENT_DATA_SQL} ELSE ev.event->'data' END AS data
       FROM ev
       LEFT JOIN execution_steps s
         ON jsonb_typeof(ev.event) = 'array' AND s.execution_id = $1 AND s.step_id = ev.event->>1 AND s.run = (ev.event->>2)::int
       WHERE ev.seq > $2
       ORDER BY ev.seq`,
      [executionId, afterSeq, limit],
    );
    const contiguous: ExecutionEvent[] = [];
    for (const row of rows) {
      // Rows of overlapping batches (a late end event) repeat a number: the first stands.
      if (row.seq < afterSeq + 1 + contiguous.length) continue;
      if (row.seq !== afterSeq + 1 + contiguous.length || contiguous.length >= limit) break;
      contiguous.push({ executionId, seq: row.seq, type: row.type, data: row.data, createdAt: row.createdAt });
    }
    return contiguous;
  }
}
