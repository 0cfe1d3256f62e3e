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
import { auditInsertSql, type NewAuditEvent } from './audit-event-repository';
import { INSERT_COLUMNS, ON_KEY_CONFLICT, insertParams, insertValuesSql, type FlowScope, type NewExecution } from './execution-repository';

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

const LIVE = `status IN ('queued', 'running', 'waiting')`;
const ms = (param: string) => `${param}::double precision * interval '1 millisecond'`;
const QUEUED_TOTAL = `(SELECT count(*)::int FROM executions q WHERE q.organization_id = $2 AND q.status = 'queued')`;

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
    await this.manager.query(`SELECT pg_advisory_xact_lock(4404, hashtext($1 || '/' || $2 || '/' || $3))`, [
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
    const params = [...insertParams(execution), admission.flowKey, admission.limit, admission.mode, admission.maxQueued];
    params.push(admission.maxQueuedTotal, admission.queuedId ?? null);
    const values = insertValuesSql(`CASE WHEN d.admit = 'queued' THEN COALESCE($21::text, $1::text) ELSE $1::text END`, 'd.admit');
    const sql = `WITH s AS (
        SELECT count(*) FILTER (WHERE status <> 'queued')::int AS held, count(*) FILTER (WHERE status = 'queued')::int AS queued,
               (array_agg(id ORDER BY created_at, id) FILTER (WHERE status <> 'queued'))[1:20] AS holders, ${QUEUED_TOTAL} AS "queuedTotal"
          FROM executions WHERE organization_id = $2 AND workflow_id = $3 AND flow_key = $16::text AND ${LIVE}
      ),
      d AS (
        SELECT s.*, CASE WHEN s.held < $17::int AND s.queued = 0 THEN 'running'
                         WHEN $18::text = 'cancel-in-progress' THEN 'running'
                         WHEN $18::text = 'queue' AND s.queued < $19::int AND s."queuedTotal" < $20::int THEN 'queued' END AS admit
          FROM s
      ),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, flow_limit, admitted_at)
        SELECT ${values}, $16::text, 'concurrency', $17::int, CASE WHEN d.admit = 'running' THEN now() END
          FROM d WHERE d.admit IS NOT NULL
        ${ON_KEY_CONFLICT} RETURNING ${selectColumns(this.manager, ExecutionEntity)}
      )`;
    return this.admitted(sql, params, execution, audit);
  }

  /**
   * A start under a throttle key: due now when fewer than `limit` starts are planned in the last period,
   * else one period after the `limit`-th latest planned start (so each period holds `limit` starts, in
   * order); a start due later is queued with that time (`not_before`), which the flow sweep keeps.
   */
  async admitThrottle(execution: NewExecution, admission: ThrottleAdmission, audit?: NewAuditEvent): Promise<Admission> {
    const params = [...insertParams(execution), admission.flowKey, admission.limit, admission.periodMs, admission.refuseIfLater];
    params.push(admission.maxQueued, admission.maxQueuedTotal, admission.queuedId ?? null);
    const planned = `COALESCE(not_before, admitted_at)`;
    const values = insertValuesSql(`CASE WHEN d.admit = 'queued' THEN COALESCE($22::text, $1::text) ELSE $1::text END`, 'd.admit');
    const sql = `WITH recent AS (
        SELECT ${planned} AS t FROM executions
         WHERE organization_id = $2 AND workflow_id = $3 AND flow_kind = 'throttle' AND flow_key = $16::text
           AND ${planned} > now() - ${ms('$18')} AND NOT (status = 'cancelled' AND admitted_at IS NULL)
         ORDER BY 1 DESC LIMIT $17::int
      ),
      s AS (
        SELECT CASE WHEN count(*) < $17::int THEN now() ELSE GREATEST(now(), min(t) + ${ms('$18')}) END AS due,
               (SELECT count(*)::int FROM executions WHERE organization_id = $2 AND workflow_id = $3 AND flow_key = $16::text AND status = 'queued') AS queued,
               ${QUEUED_TOTAL} AS "queuedTotal"
          FROM recent
      ),
      d AS (
        SELECT s.*, 0 AS held, ARRAY[]::text[] AS holders,
               CASE WHEN s.due <= now() THEN 'running'
                    WHEN NOT $19::boolean AND s.queued < $20::int AND s."queuedTotal" < $21::int THEN 'queued' END AS admit
          FROM s
      ),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, not_before, admitted_at)
        SELECT ${values}, $16::text, 'throttle', d.due, CASE WHEN d.admit = 'running' THEN now() END
          FROM d WHERE d.admit IS NOT NULL
        ${ON_KEY_CONFLICT} RETURNING ${selectColumns(this.manager, ExecutionEntity)}
      )`;
    return this.admitted(sql, params, execution, audit);
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
              not_before = LEAST(now() + ${ms('$6')}, created_at + ${ms('$7')})
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
    const params = [
      ...insertParams(execution),
      debounce.flowKey,
      Math.min(debounce.periodMs, debounce.maxWaitMs),
      debounce.queuedId ?? null,
    ];
    const sql = `WITH d AS (SELECT 0 AS held, 0 AS queued, 0 AS "queuedTotal", ARRAY[]::text[] AS holders, 'queued' AS admit),
      e AS (
        INSERT INTO executions (${INSERT_COLUMNS}, flow_key, flow_kind, not_before)
        SELECT ${insertValuesSql('COALESCE($18::text, $1::text)', `'queued'`)}, $16::text, 'debounce', now() + ${ms('$17')}
        ${ON_KEY_CONFLICT} RETURNING ${selectColumns(this.manager, ExecutionEntity)}
      )`;
    return this.admitted(sql, params, execution, audit);
  }

  /** Runs an admission statement (CTEs `d` and `e`), with the audit event written exactly when the row is. */
  private async admitted(ctes: string, params: unknown[], execution: NewExecution, audit?: NewAuditEvent): Promise<Admission> {
    const withAudit =
      audit === undefined ? '' : `, a AS (${auditInsertSql(audit, (value) => `$${params.push(value)}`, 'e')} RETURNING id::float8 AS id)`;
    const sql = `${ctes}${withAudit}
      SELECT d.held AS "__held", d.queued AS "__queued", d."queuedTotal" AS "__queuedTotal", d.holders AS "__holders",
             ${audit === undefined ? 'NULL' : '(SELECT id FROM a)'} AS "__auditId", e.*
        FROM d LEFT JOIN e ON true`;
    const [read] = await rowsOf<
      ExecutionEntity & { __held: number; __queued: number; __queuedTotal: number; __holders: string[] | null; __auditId: number | null }
    >(this.manager, sql, params);
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
