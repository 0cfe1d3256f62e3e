/**
 * The `executions` table as flow control's admission writes it (executions/flow/admit.ts has the design): a
 * flow-controlled start recorded `running` or `queued`, or refused, by one statement over the key's runs.
 * Every such statement runs after `lockKey` in the same transaction, so the transaction-scoped advisory
 * lock orders all admissions and promotions of one key across API replicas and workers; the counts are
 * taken by the statement after the lock (a fresh snapshot under READ COMMITTED), never before it.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity } from '../entities/execution';
import { rowsOf, selectColumns } from '../sql';
import { bind, raw, sql, type Bound, type Sql } from '../sql-builder';
import { auditInsertSql, type NewAuditEvent } from './audit-event-repository';
import { INSERT_COLUMNS, ON_KEY_CONFLICT, insertValues, type FlowScope, type NewExecution } from './execution-repository';

/** How a start meets a full key: `child` and `scheduled` are the sub-workflow and cron callers' own rules. */
export type AdmissionMode = 'queue' | 'cancel-in-progress' | 'refuse';

export interface ConcurrencyAdmission {
  flowKey: string;
  limit: number;
  mode: AdmissionMode;
  /** Queued runs per key and per organization at most. */
  maxQueued: number;
  maxQueuedTotal: number;
  /** The id a queued run gets (a cron tick's own id names its running schedule run); default the start's id. */
  queuedId?: string;
}

export interface ThrottleAdmission {
  flowKey: string;
  limit: number;
  periodMs: number;
  /** Never queue: a start that is not due now is refused (a sub-workflow child). */
  refuseIfLater: boolean;
  maxQueued: number;
  maxQueuedTotal: number;
  queuedId?: string;
}

/** What admission decided: the row (absent: refused), whether it was written now, and the key's state before. */
export interface Admission {
  row?: ExecutionEntity;
  created: boolean;
  /** The live runs holding the key's slots before this start, oldest first (at most 20). */
  holders: string[];
  held: number;
  queued: number;
  queuedTotal: number;
  auditId?: number;
}

const LIVE = raw(`status IN ('queued', 'running', 'waiting')`);
const ms = (value: number | Bound): Sql => sql`${value}::double precision * interval '1 millisecond'`;
const queuedTotal = (organizationId: Bound): Sql =>
  sql`(SELECT count(*)::int FROM executions q WHERE q.organization_id = ${organizationId} AND q.status = 'queued')`;

/**
 * The start's values as a flow-controlled insert writes them: its status is the decision `d.admit`, and a
 * queued run takes `queuedId` when given (a cron tick's own id names its running schedule run).
 */
function admittedValues(execution: NewExecution, queuedId: string | null | undefined, status: Sql = raw('d.admit')) {
  const id = bind(execution.id);
  const choice = {
    id: sql`CASE WHEN d.admit = 'queued' THEN COALESCE(${queuedId ?? null}::text, ${id}::text) ELSE ${id}::text END`,
    status,
  };
  return insertValues(execution, choice);
}

export class ExecutionAdmissionRepository extends Repository<ExecutionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEntity, manager);
  }

  /**
   * Counts a flow-controlled sub-workflow child on its root's row while the tree is under its budget (as
   * ExecutionRepository.insertCounted does for others); true when counted or already recorded (a retry).
   */
  async countChild(execution: NewExecution, tree: { rootExecutionId: string; budget: number }): Promise<boolean> {
    const [read] = await rowsOf<{ ok: boolean }>(
      this.manager,
      `WITH counted AS (
         UPDATE executions SET descendants = descendants + 1
          WHERE id = $1 AND descendants < $2
            AND NOT EXISTS (SELECT 1 FROM executions WHERE organization_id = $3 AND workflow_id = $4 AND idempotency_key = $5)
          RETURNING id
       )
       SELECT EXISTS (SELECT 1 FROM counted)
           OR EXISTS (SELECT 1 FROM executions WHERE organization_id = $3 AND workflow_id = $4 AND idempotency_key = $5) AS ok`,
      [tree.rootExecutionId, tree.budget, execution.organizationId, execution.workflowId, execution.idempotencyKey],
    );
    return read?.ok === true;
  }

  /** Orders everything done to one key until the transaction ends. */
  async lockKey(scope: FlowScope): Promise<void> {
    await rowsOf(this.manager, `SELECT pg_advisory_xact_lock(4404, hashtext($1 || '/' || $2 || '/' || $3))`, [
      scope.organizationId,
      scope.workflowId,
      scope.flowKey,
    ]);
  }

  /**
   * A start under a concurrency key, in one statement: counts the key's holders and queue, decides
   * `running` (a free slot and nobody queued, or cancel-in-progress), `queued` (onLimit queue, under the
   * caps) or nothing (refused), and inserts the row (idempotency key as ever) with its audit event.
   */
  async admitConcurrency(execution: NewExecution, admission: ConcurrencyAdmission, audit?: NewAuditEvent): Promise<Admission> {
    const { values, key } = admittedValues(execution, admission.queuedId);
    const [flowKey, limit, mode] = [bind(admission.flowKey), bind(admission.limit), bind(admission.mode)];
    const ctes = sql`WITH s AS (
        SELECT count(*) FILTER (WHERE status <> 'queued')::int AS held, count(*) FILTER (WHERE status = 'queued')::int AS queued,
               (array_agg(id ORDER BY created_at, id) FILTER (WHERE status <> 'queued'))[1:20] AS holders, ${queuedTotal(key.organizationId)} AS "queuedTotal"
          FROM executions WHERE organization_id = ${key.organizationId} AND workflow_id = ${key.workflowId} AND flow_key = ${flowKey}::text AND ${LIVE}
      ),
      d AS (
        SELECT s.*, CASE WHEN s.held < ${limit}::int AND s.queued = 0 THEN 'running'
                         WHEN ${mode}::text = 'cancel-in-progress' THEN 'running'
                         WHEN ${mode}::text = 'queue' AND s.queued < ${admission.maxQueued}::int AND s."queuedTotal" < ${admission.maxQueuedTotal}::int THEN 'queued' END AS admit
          FROM s
      ),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, flow_limit, admitted_at)
        SELECT ${values}, ${flowKey}::text, 'concurrency', ${limit}::int, CASE WHEN d.admit = 'running' THEN now() END
          FROM d WHERE d.admit IS NOT NULL
        ${ON_KEY_CONFLICT} RETURNING ${raw(selectColumns(this.manager, ExecutionEntity))}
      )`;
    return this.admitted(ctes, execution, audit);
  }

  /**
   * A start under a throttle key: due now when fewer than `limit` starts are planned in the last period,
   * else one period after the `limit`-th latest planned start (so each period holds `limit` starts, in
   * order); a start due later is queued with that time (`not_before`), which the flow sweep keeps.
   */
  async admitThrottle(execution: NewExecution, admission: ThrottleAdmission, audit?: NewAuditEvent): Promise<Admission> {
    const { values, key } = admittedValues(execution, admission.queuedId);
    const [flowKey, limit, period] = [bind(admission.flowKey), bind(admission.limit), bind(admission.periodMs)];
    const planned = raw(`COALESCE(not_before, admitted_at)`);
    const ctes = sql`WITH recent AS (
        SELECT ${planned} AS t FROM executions
         WHERE organization_id = ${key.organizationId} AND workflow_id = ${key.workflowId} AND flow_kind = 'throttle' AND flow_key = ${flowKey}::text
           AND ${planned} > now() - ${ms(period)} AND NOT (status = 'cancelled' AND admitted_at IS NULL)
         ORDER BY 1 DESC LIMIT ${limit}::int
      ),
      s AS (
        SELECT CASE WHEN count(*) < ${limit}::int THEN now() ELSE GREATEST(now(), min(t) + ${ms(period)}) END AS due,
               (SELECT count(*)::int FROM executions
                 WHERE organization_id = ${key.organizationId} AND workflow_id = ${key.workflowId} AND flow_key = ${flowKey}::text AND status = 'queued') AS queued,
               ${queuedTotal(key.organizationId)} AS "queuedTotal"
          FROM recent
      ),
      d AS (
        SELECT s.*, 0 AS held, ARRAY[]::text[] AS holders,
               CASE WHEN s.due <= now() THEN 'running'
                    WHEN NOT ${admission.refuseIfLater}::boolean AND s.queued < ${admission.maxQueued}::int
                         AND s."queuedTotal" < ${admission.maxQueuedTotal}::int THEN 'queued' END AS admit
          FROM s
      ),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, not_before, admitted_at)
        SELECT ${values}, ${flowKey}::text, 'throttle', d.due, CASE WHEN d.admit = 'running' THEN now() END
          FROM d WHERE d.admit IS NOT NULL
        ${ON_KEY_CONFLICT} RETURNING ${raw(selectColumns(this.manager, ExecutionEntity))}
      )`;
    return this.admitted(ctes, execution, audit);
  }

  /**
   * A start under a debounce key: the key's queued run, if any, takes this start's inputs and trigger
   * and is pushed back to one period from now (never past its first start plus `maxWaitMs`); answered
   * undefined when the key has none (the caller then queues a new run with {@link queueDebounced}).
   */
  async mergeDebounced(
    execution: NewExecution,
    debounce: { flowKey: string; periodMs: number; maxWaitMs: number },
  ): Promise<ExecutionEntity | undefined> {
    const [row] = await rowsOf<ExecutionEntity>(
      this.manager,
      `UPDATE executions SET inputs = $4::jsonb, trigger = $5::jsonb, updated_at = now(),
              not_before = LEAST(now() + $6::double precision * interval '1 millisecond', created_at + $7::double precision * interval '1 millisecond')
        WHERE organization_id = $1 AND workflow_id = $2 AND flow_key = $3::text AND flow_kind = 'debounce' AND status = 'queued'
        RETURNING ${selectColumns(this.manager, ExecutionEntity)}`,
      [
        execution.organizationId,
        execution.workflowId,
        debounce.flowKey,
        JSON.stringify(execution.inputs),
        JSON.stringify(execution.trigger),
        debounce.periodMs,
        debounce.maxWaitMs,
      ],
    );
    return row;
  }

  /** The first start of a debounce burst: a queued run due one period from now (or at `maxWaitMs`). */
  async queueDebounced(
    execution: NewExecution,
    debounce: { flowKey: string; periodMs: number; maxWaitMs: number; queuedId?: string },
    audit?: NewAuditEvent,
  ): Promise<Admission> {
    const { values } = admittedValues(execution, debounce.queuedId, raw(`'queued'`));
    const ctes = sql`WITH d AS (SELECT 0 AS held, 0 AS queued, 0 AS "queuedTotal", ARRAY[]::text[] AS holders, 'queued' AS admit),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, not_before)
        SELECT ${values}, ${debounce.flowKey}::text, 'debounce', now() + ${ms(Math.min(debounce.periodMs, debounce.maxWaitMs))} FROM d
        ${ON_KEY_CONFLICT} RETURNING ${raw(selectColumns(this.manager, ExecutionEntity))}
      )`;
    return this.admitted(ctes, execution, audit);
  }

  /** Runs an admission statement (CTEs `d` and `e`), with the audit event written exactly when the row is. */
  private async admitted(ctes: Sql, execution: NewExecution, audit?: NewAuditEvent): Promise<Admission> {
    const withAudit = audit === undefined ? raw('') : sql`, a AS (${auditInsertSql(audit, 'e')} RETURNING id::float8 AS id)`;
    const statement = sql`${ctes}${withAudit}
      SELECT d.held AS "__held", d.queued AS "__queued", d."queuedTotal" AS "__queuedTotal", d.holders AS "__holders",
             ${raw(audit === undefined ? 'NULL' : '(SELECT id FROM a)')} AS "__auditId", e.*
        FROM d LEFT JOIN e ON true`;
    const [read] = await rowsOf<
      ExecutionEntity & { __held: number; __queued: number; __queuedTotal: number; __holders: string[] | null; __auditId: number | null }
    >(this.manager, statement);
    const { __held: held, __queued: queued, __queuedTotal: queuedTotal, __holders, __auditId, ...row } = read;
    const state = { held, queued, queuedTotal, holders: __holders ?? [] };
    if (row.id !== null && row.id !== undefined)
      return { row, created: true, ...state, ...(__auditId !== null ? { auditId: __auditId } : {}) };
    // Nothing inserted: a repeated idempotency key (answered with its run), or refused.
    const existing = execution.idempotencyKey === null ? undefined : await this.existingByKey(execution);
    return existing ? { row: existing, created: false, ...state } : { created: false, ...state };
  }

  private async existingByKey(execution: NewExecution): Promise<ExecutionEntity | undefined> {
    return (
      (await this.findOneBy({
        organizationId: execution.organizationId,
        workflowId: execution.workflowId,
        idempotencyKey: execution.idempotencyKey!,
      })) ?? undefined
    );
  }
}
