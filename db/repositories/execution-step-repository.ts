/**
 * The `execution_steps` table: the latest record of each step run, upserted by (execution, step, run) so a
 * replayed batch changes nothing. Records are stored compact and read whole (docs/architecture.md, "Step
 * records"): `stepId`, `run`, `status` and the timestamps are the row's columns, so the stored record leaves
 * them out, and `activePorts` when it is `["default"]`; items longer than PAYLOAD_MIN_BYTES are stored once per execution in `execution_step_payloads`
 * and named by hash (a response passed on by the steps after it is stored once); `outputs` equal to the first
 * item is left out. Rows written before migration 1763800000300 hold the whole record and read as they are.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionStepEntity } from '../entities/execution-step';
import { deletedCount, isoSql, rowsOf, selectColumns } from '../sql';
import { bound, raw, sql, type Sql } from '../sql-builder';
import { insertPayloadsSql, payloadHashSql, storedApartSql } from './execution-step-payload-repository';

/** The ports of most records, left out of the stored record. */
export const DEFAULT_PORTS = `'["default"]'::jsonb`;

/** The keys of a record (the jsonb `r`) that the row holds otherwise: a timestamp only when its column gives its text back. */
function keysLeftOut(r: string): string {
  const stamp = (key: string) => `CASE WHEN ${isoSql(`(${r}->>'${key}')::timestamptz`)} = ${r}->>'${key}' THEN '${key}' ELSE '' END`;
  return `ARRAY['stepId', 'run', 'status', ${stamp('startedAt')}, ${stamp('completedAt')},
    CASE WHEN ${storedApartSql(`${r}->'items'`)} THEN 'items' ELSE '' END,
    CASE WHEN ${r}->'outputs' = ${r}->'items'->0 THEN 'outputs' ELSE '' END,
    CASE WHEN ${r}->'activePorts' = ${DEFAULT_PORTS} THEN 'activePorts' ELSE '' END]`;
}

/**
 * The writes of a batch of step records (its values bound once, used in both): the large items, then the
 * multi-row upsert (each also one part of a step batch: step-batch-statement.ts). A step's first start time
 * is kept; when it is not the record's, the record keeps its own (`null` when it had none).
 */
export function upsertStepsSql(executionIdValue: unknown, recordsJsonValue: unknown): Sql[] {
  const executionId = bound(executionIdValue);
  const recordsJson = bound(recordsJsonValue);
  return [
    insertPayloadsSql(executionId, recordsJson),
    sql`INSERT INTO execution_steps (execution_id, step_id, run, status, record, items_hash, started_at, completed_at)
    SELECT ${executionId}, r->>'stepId', (r->>'run')::int, r->>'status', r - ${raw(keysLeftOut('r'))},
      CASE WHEN ${raw(storedApartSql("r->'items'"))} THEN ${raw(payloadHashSql("r->'items'"))} END,
      (r->>'startedAt')::timestamptz, (r->>'completedAt')::timestamptz
    FROM jsonb_array_elements(${recordsJson}::jsonb) AS r
    ON CONFLICT (execution_id, step_id, run) DO UPDATE
      SET status = EXCLUDED.status, items_hash = EXCLUDED.items_hash,
          record = CASE
            WHEN execution_steps.started_at IS NULL OR EXCLUDED.record ? 'startedAt' THEN EXCLUDED.record
            WHEN EXCLUDED.started_at IS NULL THEN EXCLUDED.record || '{"startedAt": null}'::jsonb
            WHEN execution_steps.started_at <> EXCLUDED.started_at
              THEN EXCLUDED.record || jsonb_build_object('startedAt', ${raw(isoSql('EXCLUDED.started_at'))})
            ELSE EXCLUDED.record END,
          started_at = COALESCE(execution_steps.started_at, EXCLUDED.started_at), completed_at = EXCLUDED.completed_at`,
  ];
}

/**
 * Ends the step runs of an execution that are still recorded as running when the execution ends
 * (`executionIds`, a subquery, names it once it was just finished; `status` is its end status): a step interrupted by
 * a cancel or terminate, or left in flight by a failure, reads `cancelled`, with an error that says how the
 * execution ended (EXECUTION_CANCELLED, EXECUTION_TERMINATED, EXECUTION_FAILED), and the time it ended.
 * A run's rows are settled once: the execution's end is written once.
 */
export function settleStepsSql(executionIds: Sql, statusValue: unknown, exceptRecordsJson?: unknown): Sql {
  const status = bound(statusValue);
  // Runs the same statement writes from `exceptRecordsJson` (a batch written with the end) are left to that write:
  // a statement must not update a row twice.
  const except =
    exceptRecordsJson === undefined
      ? raw('')
      : sql` AND (step_id, run) NOT IN (SELECT r->>'stepId', (r->>'run')::int FROM jsonb_array_elements(${bound(exceptRecordsJson)}::jsonb) AS r)`;
  return sql`UPDATE execution_steps SET status = 'cancelled', completed_at = now(),
      record = record - 'completedAt' || jsonb_build_object('error', jsonb_build_object(
        'code', 'EXECUTION_' || upper(${status}::text),
        'message', 'the execution ended (' || ${status}::text || ') while this step ran',
        'retryable', false))
    WHERE execution_id IN ${executionIds} AND status IN ('running', 'waiting')${except}`;
}

/** The whole record of the row `s` (its payload `p` joined), as the workflow wrote it, but for an `outputs` left out (added by the read). */
const WHOLE_RECORD_SQL = `(s.record || jsonb_build_object('stepId', s.step_id, 'run', s.run, 'status', s.status)
    || CASE WHEN s.items_hash IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('items', p.items) END
    || CASE WHEN s.record ? 'activePorts' THEN '{}'::jsonb ELSE jsonb_build_object('activePorts', ${DEFAULT_PORTS}) END
    || CASE WHEN s.record ? 'startedAt' OR s.started_at IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('startedAt', ${isoSql('s.started_at')}) END
    || CASE WHEN s.record ? 'completedAt' OR s.completed_at IS NULL THEN '{}'::jsonb
       ELSE jsonb_build_object('completedAt', ${isoSql('s.completed_at')}) END)
    - CASE WHEN s.record->'startedAt' = 'null'::jsonb THEN 'startedAt' ELSE '' END`;

export class ExecutionStepRepository extends Repository<ExecutionStepEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionStepEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_steps WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** The rows' columns with each record whole: the FROM clause of every read. */
  private selectWhole(): string {
    const columns = selectColumns(this.manager, ExecutionStepEntity, 's');
    const record = `s."record" AS "record"`;
    if (!columns.includes(record)) throw new Error('execution_steps: the record column moved');
    return `SELECT ${columns.replace(record, `CASE WHEN b.whole ? 'outputs' THEN b.whole ELSE b.whole || jsonb_build_object('outputs', b.whole->'items'->0) END AS "record"`)}
      FROM execution_steps s
      LEFT JOIN execution_step_payloads p ON p.execution_id = s.execution_id AND p.hash = s.items_hash
      CROSS JOIN LATERAL (SELECT ${WHOLE_RECORD_SQL} AS whole) b`;
  }

  /** The large items and the multi-row upsert; a step's first start time is kept. */
  async upsertRecords(executionId: string, records: Array<ExecutionStepEntity['record']>): Promise<void> {
    if (records.length === 0) return;
    for (const statement of upsertStepsSql(executionId, JSON.stringify(records))) await rowsOf(this.manager, statement);
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
        `${this.selectWhole()} WHERE s.execution_id = $1 AND ($2::text IS NULL OR s.step_id = $2)
         ORDER BY s.started_at NULLS LAST, s.step_id, s.run LIMIT $3 OFFSET $4`,
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
      `${this.selectWhole()} WHERE s.execution_id = $1 AND s.step_id = $2 ORDER BY s.run DESC LIMIT 1`,
      [executionId, stepId],
    );
    return row;
  }

  /** Every run of every step (or of one step), in start order. */
  async listOf(executionId: string, stepId?: string): Promise<ExecutionStepEntity[]> {
    return rowsOf<ExecutionStepEntity>(
      this.manager,
      `${this.selectWhole()} WHERE s.execution_id = $1 AND ($2::text IS NULL OR s.step_id = $2)
       ORDER BY s.started_at NULLS LAST, s.step_id, s.run`,
      [executionId, stepId ?? null],
    );
  }
}
