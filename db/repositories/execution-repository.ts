/**
 * The `executions` table. Writes are idempotent (activities may be retried): a
 * repeated idempotency key is decided by the unique index, not by a read, and
 * the final status is written only over a running (or waiting) execution.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity, type ExecutionStatus, type RunHealth } from '../entities/execution';
import { deletedCount, poolQuery, rowsOf, selectColumns } from '../sql';
import { auditInsertSql, type NewAuditEvent } from './audit-event-repository';
import { callerGrantsColumns, type CallerGrantsRead, type CallerKey } from './grant-repository';
import { NEXT_EVENT_SEQ_SQL } from './execution-event-repository';
import { settleStepsSql } from './execution-step-repository';

/** What recording a run writes; the rest comes from column defaults. */
export type NewExecution = Pick<
  ExecutionEntity,
  | 'id'
  | 'organizationId'
  | 'workflowId'
  | 'workflowKey'
  | 'revision'
  | 'alias'
  | 'inputs'
  | 'trigger'
  | 'correlationKey'
  | 'idempotencyKey'
  | 'parentExecutionId'
  | 'temporalNamespace'
  | 'createdBy'
> &
  Partial<Pick<ExecutionEntity, 'rerunOf' | 'rerunKind'>>;

const INSERT_COLUMNS = `id, organization_id, workflow_id, workflow_key, revision, alias, status, inputs, trigger, correlation_key,
  idempotency_key, parent_execution_id, temporal_namespace, created_by, rerun_of, rerun_kind`;
// Typed, as they are also selected (insertCounted), where PostgreSQL cannot infer a parameter's type from its column.
const INSERT_VALUES = `$1::text, $2::text, $3::text, $4::text, $5::integer, $6::text, 'running', $7::jsonb, $8::jsonb, $9::text,
  $10::text, $11::text, $12::text, $13::text, $14::text, $15::text`;
const ON_KEY_CONFLICT = 'ON CONFLICT (organization_id, workflow_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING';

function insertParams(execution: NewExecution): unknown[] {
  return [
    execution.id,
    execution.organizationId,
    execution.workflowId,
    execution.workflowKey,
    execution.revision,
    execution.alias,
    JSON.stringify(execution.inputs),
    JSON.stringify(execution.trigger),
    execution.correlationKey,
    execution.idempotencyKey,
    execution.parentExecutionId,
    execution.temporalNamespace,
    execution.createdBy,
    execution.rerunOf ?? null,
    execution.rerunKind ?? null,
  ];
}

/** Where the retention sweep's scan of ended executions stands: the last execution a batch took. */
/** Which rows a reconciler sweep looks at: its namespace's, older than the grace, at most `limit` (one organization's in tests). */
export interface SweepCandidates {
  temporalNamespace: string;
  graceMs: number;
  limit: number;
  organizationId?: string;
}

export interface ExpiredPosition {
  id: string;
  completedAt: Date;
}

export interface ExecutionFilter {
  workflowId?: string;
  alias?: string;
  status?: ExecutionStatus;
  correlationKey?: string;
  /** Re-runs and retries of this execution. */
  rerunOf?: string;
  from?: Date;
  to?: Date;
}

export class ExecutionRepository extends Repository<ExecutionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEntity, manager);
  }

  /**
   * Inserts a running execution. With an idempotency key already used for the
   * workflow, nothing is inserted and the existing execution comes back with
   * `created: false`. With `audit`, the same statement writes that event exactly
   * when it writes the row (both or neither: one statement, no transaction), and
   * answers its id.
   */
  async insertIdempotent(
    execution: NewExecution,
    audit?: NewAuditEvent,
  ): Promise<{ row: ExecutionEntity; created: boolean; auditId?: number }> {
    const params = insertParams(execution);
    const insert = `INSERT INTO executions (${INSERT_COLUMNS}) VALUES (${INSERT_VALUES}) ${ON_KEY_CONFLICT} RETURNING ${selectColumns(this.manager, ExecutionEntity)}`;
    const sql =
      audit === undefined
        ? insert
        : `WITH e AS (${insert}), a AS (${auditInsertSql(audit, (value) => `$${params.push(value)}`, 'e')} RETURNING id::float8 AS id)
           SELECT e.*, a.id AS "__auditId" FROM e, a`;
    const [inserted] = await rowsOf<ExecutionEntity & { __auditId?: number }>(this.manager, sql, params);
    if (!inserted) return { row: await this.existing(execution), created: false };
    const { __auditId: auditId, ...row } = inserted;
    return { row, created: true, ...(auditId !== undefined ? { auditId } : {}) };
  }

  /**
   * Inserts a sub-workflow child counted against its tree's budget, in one
   * statement: the root's row gains one descendant only while it has fewer
   * than `budget` (the row lock orders siblings recorded at once, so the
   * count never passes the budget), and the child is inserted only when it
   * did. A child already recorded under its key (a retried activity) is not
   * counted again and comes back with `created: false`. Undefined: the tree
   * is at its budget, and nothing was written. (Two attempts of one activity
   * racing past the key check would count the child twice: too many, never
   * too few.)
   */
  async insertCounted(
    execution: NewExecution,
    tree: { rootExecutionId: string; budget: number },
  ): Promise<{ row: ExecutionEntity; created: boolean } | undefined> {
    const inserted = await rowsOf<ExecutionEntity>(
      this.manager,
      `WITH counted AS (
         UPDATE executions SET descendants = descendants + 1
         WHERE id = $16 AND descendants < $17
           AND NOT EXISTS (SELECT 1 FROM executions WHERE organization_id = $2 AND workflow_id = $3 AND idempotency_key = $10)
         RETURNING id
       )
       INSERT INTO executions (${INSERT_COLUMNS}) SELECT ${INSERT_VALUES} FROM counted ${ON_KEY_CONFLICT}
       RETURNING ${selectColumns(this.manager, ExecutionEntity)}`,
      [...insertParams(execution), tree.rootExecutionId, tree.budget],
    );
    if (inserted.length > 0) return { row: inserted[0], created: true };
    // Nothing inserted: recorded before (a retry), or refused by the budget. Only the refusal costs this second read.
    const existing = await this.existing(execution);
    return existing ? { row: existing, created: false } : undefined;
  }

  private async existing(execution: NewExecution): Promise<ExecutionEntity> {
    const [row] = await rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity)} FROM executions WHERE organization_id = $1 AND workflow_id = $2 AND idempotency_key = $3`,
      [execution.organizationId, execution.workflowId, execution.idempotencyKey],
    );
    return row;
  }

  async findInOrganization(organizationId: string, id: string): Promise<ExecutionEntity | undefined> {
    return (await this.findOneBy({ organizationId, id })) ?? undefined;
  }

  /**
   * The execution `id` of the caller's organization with its workflow's NRN (`workflow` null once
   * the workflow was deleted), and, in the same statement, the caller's grants: whether the row
   * exists or not, so the access is decided on grants read at the same instant as the row, and a
   * polling client pays one round trip per read (on the pool, as a prepared statement).
   */
  async findWithWorkflowNrnAndGrants(
    caller: CallerKey,
    id: string,
  ): Promise<{ grants: CallerGrantsRead; found?: { row: ExecutionEntity; workflow: { nrn: string | null } | null } }> {
    const [read] = await poolQuery<
      CallerGrantsRead & ExecutionEntity & { executionFound: boolean; workflowFound: boolean; workflowNrn: string | null }
    >(
      this.manager,
      'execution-with-grants',
      `SELECT ${callerGrantsColumns('$1', '$2', '$3')},
              e.id IS NOT NULL AS "executionFound", ${selectColumns(this.manager, ExecutionEntity, 'e')},
              w.id IS NOT NULL AS "workflowFound", w.nrn AS "workflowNrn"
         FROM (SELECT 1) AS caller
         LEFT JOIN executions e ON e.organization_id = $4 AND e.id = $5
         LEFT JOIN workflows w ON w.organization_id = e.organization_id AND w.id = e.workflow_id`,
      [caller.id, caller.organizationId, caller.type, caller.organizationId, id],
    );
    const { held, userType, executionFound, workflowFound, workflowNrn, ...row } = read;
    const grants = { held, userType };
    if (!executionFound) return { grants };
    return { grants, found: { row, workflow: workflowFound ? { nrn: workflowNrn } : null } };
  }

  /** The status alone: a read that waits for the end re-reads it on every event of the execution, and the outputs may be large. */
  async statusInOrganization(organizationId: string, id: string): Promise<ExecutionStatus | undefined> {
    // On the pool, as a prepared statement: a held read runs it on every event of the execution.
    const [row] = await poolQuery<Pick<ExecutionEntity, 'status'>>(
      this.manager,
      'execution-status',
      `SELECT status FROM executions WHERE organization_id = $1 AND id = $2`,
      [organizationId, id],
    );
    return row?.status;
  }

  /** By id alone, for anonymous callbacks that carry the execution id and an unguessable token. */
  async findAnywhere(id: string): Promise<ExecutionEntity | undefined> {
    return (await this.findOneBy({ id })) ?? undefined;
  }

  async setTemporalRunId(id: string, runId: string): Promise<void> {
    await this.update({ id }, { temporalRunId: runId, updatedAt: () => 'now()' });
  }

  /**
   * Top-level executions recorded but never linked to a Temporal run, older than
   * `graceMs`, oldest first: the candidates of the start reconciler
   * (executions/reconcile-starts.ts). One statement over the partial index
   * executions_unstarted (never-started executions only, however many others
   * wait); rows of other namespaces are left to the deployment that owns them.
   *
   * - `parent_execution_id IS NULL`: a sub-workflow child is recorded by its
   *   parent's prepareChild activity and started by the parent workflow as a
   *   child workflow; its temporal_run_id stays NULL for good. The parent owns it.
   * - `trigger->>'source' <> 'cron'`: a cron tick's row is written by its own,
   *   already running Temporal run (prepareScheduledExecution, with the run's
   *   workflow id as execution id), which records its run id in the same
   *   activity and retries until it has. That run owns it; starting it again
   *   would run the tick twice. A re-run or retry of a tick (`rerun_of`) is started by the API like any
   *   other execution, so it is a candidate.
   * - `waiting` as well as `running`: only a workflow writes `waiting`, so such a
   *   row always has a run; the reconciler finds it and records its id.
   */
  async findUnstarted(options: SweepCandidates): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity)} FROM executions
       WHERE temporal_run_id IS NULL AND parent_execution_id IS NULL AND status IN ('running', 'waiting')
         AND (trigger->>'source' IS DISTINCT FROM 'cron' OR rerun_of IS NOT NULL)
         AND temporal_namespace = $1 AND created_at <= now() - $2::double precision * interval '1 millisecond'
         AND ($3::text IS NULL OR organization_id = $3)
       ORDER BY created_at, id LIMIT $4`,
      [options.temporalNamespace, options.graceMs, options.organizationId ?? null, options.limit],
    );
  }

  /**
   * Sub-workflow children still `running` or `waiting` whose parent ended more than `graceMs` ago,
   * least recently updated first: the candidates of the children sweep (executions/settle-children.ts),
   * over the partial index executions_children_live (live children only; keyed by creation, so touching one stays a HOT
   * update, and its few rows are sorted here by updated_at). A child the sweep found still running is touched
   * ({@link touch}), so it waits `graceMs` before it is looked at again and the others get their turn.
   */
  async findLiveChildrenOfEnded(options: SweepCandidates): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity, 'c')} FROM executions c
       JOIN executions p ON p.id = c.parent_execution_id
       WHERE c.parent_execution_id IS NOT NULL AND c.status IN ('running', 'waiting')
         AND c.updated_at <= now() - $2::double precision * interval '1 millisecond'
         AND p.status NOT IN ('running', 'waiting') AND p.completed_at <= now() - $2::double precision * interval '1 millisecond'
         AND c.temporal_namespace = $1 AND ($3::text IS NULL OR c.organization_id = $3)
       ORDER BY c.updated_at, c.id LIMIT $4`,
      [options.temporalNamespace, options.graceMs, options.organizationId ?? null, options.limit],
    );
  }

  /** Marks a live execution as looked at now (nothing else changes). */
  async touch(executionId: string): Promise<void> {
    await this.manager.query(`UPDATE executions SET updated_at = now() WHERE id = $1 AND status IN ('running', 'waiting')`, [executionId]);
  }

  /**
   * Open executions older than `graceMs` not looked at in Temporal for `graceMs`, least recently checked first
   * (never checked before all): the candidates of the open-runs sweep (executions/check-open-runs.ts), by the
   * partial index executions_open_checked (open rows only, however many ended ones the table holds).
   */
  async findOpenToCheck(options: SweepCandidates): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity)} FROM executions
       WHERE status IN ('running', 'waiting')
         AND (checked_at IS NULL OR checked_at <= now() - $2::double precision * interval '1 millisecond')
         AND created_at <= now() - $2::double precision * interval '1 millisecond'
         AND temporal_namespace = $1 AND ($3::text IS NULL OR organization_id = $3)
       ORDER BY checked_at NULLS FIRST, created_at, id LIMIT $4`,
      [options.temporalNamespace, options.graceMs, options.organizationId ?? null, options.limit],
    );
  }

  /** Records what the open-runs sweep saw of a live execution: when, and its health (null: well). `updated_at` stays. */
  async markChecked(executionId: string, health: RunHealth | null): Promise<void> {
    await this.manager.query(
      `UPDATE executions SET checked_at = now(), run_health = $2::jsonb WHERE id = $1 AND status IN ('running', 'waiting')`,
      [executionId, health === null ? null : JSON.stringify(health)],
    );
  }

  /** Open executions of a namespace whose workflow task the sweep last saw failing (the metric's gauge). */
  async countTaskFailing(temporalNamespace: string): Promise<number> {
    const [row] = await rowsOf<{ n: number }>(
      this.manager,
      `SELECT count(*)::int AS n FROM executions
       WHERE run_health IS NOT NULL AND status IN ('running', 'waiting') AND temporal_namespace = $1`,
      [temporalNamespace],
    );
    return row?.n ?? 0;
  }

  /** Failed executions whose recovery runs were never dispatched, oldest first (the failure sweep's candidates). */
  async findFailedUndispatched(options: { graceMs: number; limit: number; organizationId?: string }): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity)} FROM executions
       WHERE status = 'failed' AND failure_dispatched_at IS NULL
         AND completed_at <= now() - $1::double precision * interval '1 millisecond'
         AND ($2::text IS NULL OR organization_id = $2)
       ORDER BY completed_at, id LIMIT $3`,
      [options.graceMs, options.organizationId ?? null, options.limit],
    );
  }

  /** Marks a failed execution's recovery runs as started (idempotent). */
  async markFailureDispatched(executionId: string): Promise<void> {
    await this.manager.query(`UPDATE executions SET failure_dispatched_at = now() WHERE id = $1 AND failure_dispatched_at IS NULL`, [
      executionId,
    ]);
  }

  /**
   * Locks and answers up to `limit` ended executions past their retention at `now`, oldest end first: the
   * retention sweep's batch (executions/retention-sweep.ts), inside its transaction. An execution keeps
   * its workflow's days, else its organization's (execution_retention), else `defaultDays` (null: kept
   * forever). Never a running or waiting one, nor one with a child still open (the children sweep needs
   * the parent's row), nor one below an open ancestor.
   *
   * Two statements. The first finds candidates without locking: past the default, by executions_ended
   * (rows a longer setting keeps are skipped there); past each setting shorter than the default, by
   * executions_ended_org within its organization, so a short setting never walks other organizations'
   * rows. `after` (the last row of the previous batch) starts both past what the sweep already looked at.
   * The second locks them `SKIP LOCKED`: replicas sweeping at once take different rows and never wait on
   * each other or on a writer. Candidates stay valid between the two: an ended execution never reopens,
   * and ancestors and children only end.
   */
  async claimExpired(now: Date, defaultDays: number | null, limit: number, after?: ExpiredPosition): Promise<ExpiredPosition[]> {
    const expired = (e: string) => `${e}.status NOT IN ('running', 'waiting')
      AND ${e}.completed_at < $1::timestamptz - make_interval(days => COALESCE(
        (SELECT r.retention_days FROM execution_retention r WHERE r.organization_id = ${e}.organization_id AND r.workflow_id = ${e}.workflow_id),
        (SELECT r.retention_days FROM execution_retention r WHERE r.organization_id = ${e}.organization_id AND r.workflow_id = ''),
        $2::int))
      AND NOT EXISTS (SELECT 1 FROM executions c WHERE c.parent_execution_id = ${e}.id AND c.status IN ('running', 'waiting'))
      AND (${e}.parent_execution_id IS NULL OR NOT EXISTS (
        WITH RECURSIVE up (id, depth) AS (
          SELECT ${e}.parent_execution_id, 1
          UNION ALL
          SELECT a.parent_execution_id, up.depth + 1 FROM up JOIN executions a ON a.id = up.id
          WHERE a.parent_execution_id IS NOT NULL AND up.depth < 1000
        )
        SELECT 1 FROM up JOIN executions a ON a.id = up.id WHERE a.status IN ('running', 'waiting')))
      AND ($4::timestamptz IS NULL OR (${e}.completed_at, ${e}.id) > ($4::timestamptz, $5::text))`;
    const candidates = await rowsOf<{ id: string }>(
      this.manager,
      `SELECT id FROM (
         (SELECT e.id, e.completed_at FROM executions e
          WHERE e.status NOT IN ('running', 'waiting') AND e.completed_at < $1::timestamptz - make_interval(days => $2::int) AND ${expired('e')}
          ORDER BY e.completed_at, e.id LIMIT $3)
         UNION
         (SELECT x.id, x.completed_at FROM execution_retention s CROSS JOIN LATERAL (
            SELECT e.id, e.completed_at FROM executions e
            WHERE e.organization_id = s.organization_id AND (s.workflow_id = '' OR e.workflow_id = s.workflow_id)
              AND e.status NOT IN ('running', 'waiting') AND e.completed_at < $1::timestamptz - make_interval(days => s.retention_days)
              AND ${expired('e')}
            ORDER BY e.completed_at, e.id LIMIT $3) x
          WHERE $2::int IS NULL OR s.retention_days < $2::int)
       ) found ORDER BY completed_at, id LIMIT $3`,
      [now, defaultDays, limit, after?.completedAt ?? null, after?.id ?? null],
    );
    if (candidates.length === 0) return [];
    return rowsOf<ExpiredPosition>(
      this.manager,
      `SELECT id, completed_at AS "completedAt" FROM executions WHERE id = ANY($1::text[])
       ORDER BY completed_at, id FOR UPDATE SKIP LOCKED`,
      [candidates.map((row) => row.id)],
    );
  }

  /** Removes these executions' rows (their steps, logs, events and waits first: see the retention sweep); answers how many. */
  async deleteByIds(ids: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM executions WHERE id = ANY($1::text[])`, [ids]);
  }

  /**
   * Newest first (created_at DESC, id DESC), a page of `limit` rows after `offset` rows or, keyset,
   * after the row `after` names (an index range scan however deep). `next` names the page's last row
   * when more rows follow. `total` counts the filtered rows up to `countCap` (an index scan of at
   * most that many entries, never the whole organization); `totalCapped` says more rows match.
   */
  async listPage(
    organizationId: string,
    filter: ExecutionFilter,
    page: { limit: number; offset: number; after?: { createdAt: string; id: string }; countCap: number },
  ): Promise<{ rows: ExecutionEntity[]; next?: { createdAt: string; id: string }; total: number; totalCapped: boolean }> {
    const where = ['organization_id = $1'];
    const params: unknown[] = [organizationId];
    const add = (clause: string, ...values: unknown[]) => {
      where.push(clause.replace(/\?/g, () => `$${params.push(values.shift())}`));
    };
    if (filter.workflowId) add('workflow_id = ?', filter.workflowId);
    if (filter.alias) add('alias = ?', filter.alias);
    if (filter.status) add('status = ?', filter.status);
    if (filter.correlationKey) add('correlation_key = ?', filter.correlationKey);
    if (filter.rerunOf) add('rerun_of = ?', filter.rerunOf);
    if (filter.from) add('created_at >= ?', filter.from);
    if (filter.to) add('created_at < ?', filter.to);
    const counted = where.join(' AND ');
    if (page.after) add('(created_at, id) < (?::timestamptz, ?::text)', page.after.createdAt, page.after.id);
    const [rows, [count]] = await Promise.all([
      rowsOf<ExecutionEntity & { __position: string }>(
        this.manager,
        `SELECT ${selectColumns(this.manager, ExecutionEntity)},
           to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS "__position"
         FROM executions WHERE ${where.join(' AND ')}
         ORDER BY created_at DESC, id DESC LIMIT ${page.limit + 1} OFFSET ${page.offset}`,
        params,
      ),
      rowsOf<{ total: number }>(
        this.manager,
        `SELECT count(*)::int AS total FROM (SELECT 1 FROM executions WHERE ${counted} LIMIT ${page.countCap + 1}) matching`,
        params.slice(0, page.after ? -2 : undefined),
      ),
    ]);
    const more = rows.length > page.limit;
    const kept = rows.slice(0, page.limit).map(({ __position, ...row }) => ({ row, position: __position }));
    const last = kept[kept.length - 1];
    return {
      rows: kept.map(({ row }) => row),
      ...(more ? { next: { createdAt: last.position, id: last.row.id } } : {}),
      total: Math.min(count.total, page.countCap),
      totalCapped: count.total > page.countCap,
    };
  }

  /**
   * Executions created in [from, to) counted by `bucket` (hour or day, UTC) and current status,
   * and the workflows with the most failed ones among them. Both read the
   * `(organization_id, status, created_at)` index: the count by an index-only range scan per
   * status (`statuses` names every one, so the index's second column is bound), the failures by
   * the range of `failed` alone.
   */
  async countsByBucket(
    organizationId: string,
    range: { from: Date; to: Date; bucket: 'hour' | 'day'; statuses: readonly ExecutionStatus[]; failingLimit: number },
  ): Promise<{
    counts: Array<{ bucket: Date; status: ExecutionStatus; count: number }>;
    failing: Array<{ workflowId: string; workflowKey: string | null; failed: number; lastFailedAt: Date }>;
  }> {
    const params = [organizationId, range.statuses, range.from, range.to];
    const [counts, failing] = await Promise.all([
      rowsOf<{ bucket: Date; status: ExecutionStatus; count: number }>(
        this.manager,
        `SELECT date_trunc('${range.bucket}', created_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket, status, count(*)::int AS count
         FROM executions
         WHERE organization_id = $1 AND status = ANY($2::text[]) AND created_at >= $3 AND created_at < $4
         GROUP BY 1, 2 ORDER BY 1, 2`,
        params,
      ),
      rowsOf<{ workflowId: string; workflowKey: string | null; failed: number; lastFailedAt: Date }>(
        this.manager,
        `SELECT workflow_id AS "workflowId", max(workflow_key) AS "workflowKey", count(*)::int AS failed, max(created_at) AS "lastFailedAt"
         FROM executions
         WHERE organization_id = $1 AND status = 'failed' AND created_at >= $2 AND created_at < $3
         GROUP BY workflow_id ORDER BY failed DESC, "lastFailedAt" DESC, workflow_id LIMIT ${range.failingLimit}`,
        [organizationId, range.from, range.to],
      ),
    ]);
    return { counts, failing };
  }

  /**
   * Writes the final state over a running (or waiting) execution, with its end
   * event for the event stream, in one statement; a finished one is left as it is.
   * The step runs still recorded as running end with it (`settleStepsSql`), so a
   * read of an ended execution shows no step running.
   */
  async finish(
    executionId: string,
    status: ExecutionStatus,
    outputs: Record<string, unknown> | null,
    error: Record<string, unknown> | null,
    /** Position of the end event (from the workflow); without it (terminate), right after the last recorded event. */
    eventSeq?: number,
  ): Promise<void> {
    await this.manager.query(
      `WITH finished AS (
         UPDATE executions SET status = $2, outputs = $3, error = $4, completed_at = now(), updated_at = now(), run_health = NULL
         WHERE id = $1 AND status IN ('running', 'waiting') RETURNING id
       ),
       settled AS (${settleStepsSql('(SELECT id FROM finished)', '$2::text')})
       INSERT INTO execution_events (execution_id, seq, type, data)
       SELECT id, COALESCE($5::int, ${NEXT_EVENT_SEQ_SQL}),
              'execution.' || $2, jsonb_build_object('status', $2::text, 'error', $4::jsonb)
       FROM finished
       ON CONFLICT DO NOTHING`,
      [
        executionId,
        status,
        outputs === null ? null : JSON.stringify(outputs),
        error === null ? null : JSON.stringify(error),
        eventSeq ?? null,
      ],
    );
  }

  /** Records what a batch reports of the run (`recordProgressSql`) outside a batch's single statement. */
  async recordProgress(executionId: string, progress: RunProgress): Promise<void> {
    if (progress.variables === undefined && progress.waiting === undefined) return;
    const params: unknown[] = [executionId];
    const sql = recordProgressSql(
      '$1',
      progressParams(progress, (value) => `$${params.push(value)}`),
    );
    await this.manager.query(sql, params);
  }

  /** The variables the run recorded last (`{}` before its first record). */
  async variablesOf(executionId: string): Promise<Record<string, unknown>> {
    const rows = await rowsOf<{ variables: Record<string, unknown> | null }>(
      this.manager,
      `SELECT variables FROM executions WHERE id = $1`,
      [executionId],
    );
    return rows[0]?.variables ?? {};
  }
}

/** What the workflow reports of its run with a batch, when it changed since the previous batch. */
export interface RunProgress {
  variables?: Record<string, unknown>;
  /** Every step still running is parked on an open wait. */
  waiting?: boolean;
}

/** The parameters of `recordProgressSql` for a run's progress, named by `param`. */
export function progressParams(
  progress: RunProgress,
  param: (value: unknown) => string,
): { variablesParam?: string; waitingParam?: string } {
  return {
    ...(progress.variables !== undefined ? { variablesParam: param(JSON.stringify(progress.variables)) } : {}),
    ...(progress.waiting !== undefined ? { waitingParam: param(progress.waiting) } : {}),
  };
}

/**
 * What a batch writes on the execution's row, as SQL (also a part of a step batch's single statement): the
 * run's variables and whether it waits (the workflow decides: every step still running is parked on a
 * wait), each when it changed. One UPDATE, as a statement must not update a row twice. A finished
 * execution is left as it is.
 */
export function recordProgressSql(executionIdParam: string, params: { variablesParam?: string; waitingParam?: string }): string {
  const sets = [
    ...(params.variablesParam !== undefined ? [`variables = ${params.variablesParam}::jsonb`] : []),
    ...(params.waitingParam !== undefined
      ? [`status = CASE WHEN ${params.waitingParam}::boolean THEN 'waiting' ELSE 'running' END`, 'updated_at = now()']
      : []),
  ];
  return `UPDATE executions SET ${sets.join(', ')} WHERE id = ${executionIdParam} AND status IN ('running', 'waiting')`;
}
