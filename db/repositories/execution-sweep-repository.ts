/**
 * The `executions` table as the background sweeps see it: the candidates of the start reconciler,
 * the children sweep, the open-runs sweep, the failure sweep and the retention sweep, and the marks
 * each leaves on a row it looked at. The API's and the workflow's reads and writes are in
 * ExecutionRepository; every statement here goes by a partial index of its own (db/migrations), so a
 * sweep's cost follows the rows it is after, not the size of the table.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity, type RunHealth } from '../entities/execution';
import { deletedCount, rowsOf, selectColumns } from '../sql';
import { bind, raw, sql } from '../sql-builder';

/** Which rows a reconciler sweep looks at: its namespace's, older than the grace, at most `limit` (one organization's in tests). */
export interface SweepCandidates {
  temporalNamespace: string;
  graceMs: number;
  limit: number;
  organizationId?: string;
}

/** Where the retention sweep's scan of ended executions stands: the last execution a batch took. */
export interface ExpiredPosition {
  id: string;
  completedAt: Date;
}

export class ExecutionSweepRepository extends Repository<ExecutionEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionEntity, manager);
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
   *   other execution, so it is a candidate, and so is a tick flow control queued (`flow_key`): it is recorded
   *   under an id of its own and started on promotion (executions/flow/); a tick admitted at once under its
   *   run's id is found in Temporal and only has its run id recorded.
   * - `queued` rows are never candidates: they have no workflow until promoted (then `running`).
   * - `waiting` as well as `running`: only a workflow writes `waiting`, so such a
   *   row always has a run; the reconciler finds it and records its id.
   */
  async findUnstarted(options: SweepCandidates): Promise<ExecutionEntity[]> {
    return rowsOf<ExecutionEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionEntity)} FROM executions
       WHERE temporal_run_id IS NULL AND parent_execution_id IS NULL AND status IN ('running', 'waiting')
         AND (trigger->>'source' IS DISTINCT FROM 'cron' OR rerun_of IS NOT NULL OR flow_key IS NOT NULL)
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
    await rowsOf(this.manager, `UPDATE executions SET updated_at = now() WHERE id = $1 AND status IN ('running', 'waiting')`, [
      executionId,
    ]);
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
    await rowsOf(
      this.manager,
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
    await rowsOf(this.manager, `UPDATE executions SET failure_dispatched_at = now() WHERE id = $1 AND failure_dispatched_at IS NULL`, [
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
    // Each named once, wherever the statement uses it.
    const [at, days, take] = [bind(now), bind(defaultDays), bind(limit)];
    const [afterAt, afterId] = [bind(after?.completedAt ?? null), bind(after?.id ?? null)];
    const expired = (alias: string) => {
      const e = raw(alias);
      return sql`${e}.status NOT IN ('running', 'waiting')
      AND ${e}.completed_at < ${at}::timestamptz - make_interval(days => COALESCE(
        (SELECT r.retention_days FROM execution_retention r WHERE r.organization_id = ${e}.organization_id AND r.workflow_id = ${e}.workflow_id),
        (SELECT r.retention_days FROM execution_retention r WHERE r.organization_id = ${e}.organization_id AND r.workflow_id = ''),
        ${days}::int))
      AND NOT EXISTS (SELECT 1 FROM executions c WHERE c.parent_execution_id = ${e}.id AND c.status IN ('running', 'waiting'))
      AND (${e}.parent_execution_id IS NULL OR NOT EXISTS (
        WITH RECURSIVE up (id, depth) AS (
          SELECT ${e}.parent_execution_id, 1
          UNION ALL
          SELECT a.parent_execution_id, up.depth + 1 FROM up JOIN executions a ON a.id = up.id
          WHERE a.parent_execution_id IS NOT NULL AND up.depth < 1000
        )
        SELECT 1 FROM up JOIN executions a ON a.id = up.id WHERE a.status IN ('running', 'waiting')))
      AND (${afterAt}::timestamptz IS NULL OR (${e}.completed_at, ${e}.id) > (${afterAt}::timestamptz, ${afterId}::text))`;
    };
    const candidates = await rowsOf<{ id: string }>(
      this.manager,
      sql`SELECT id FROM (
         (SELECT e.id, e.completed_at FROM executions e
          WHERE e.status NOT IN ('running', 'waiting') AND e.completed_at < ${at}::timestamptz - make_interval(days => ${days}::int) AND ${expired('e')}
          ORDER BY e.completed_at, e.id LIMIT ${take})
         UNION
         (SELECT x.id, x.completed_at FROM execution_retention s CROSS JOIN LATERAL (
            SELECT e.id, e.completed_at FROM executions e
            WHERE e.organization_id = s.organization_id AND (s.workflow_id = '' OR e.workflow_id = s.workflow_id)
              AND e.status NOT IN ('running', 'waiting') AND e.completed_at < ${at}::timestamptz - make_interval(days => s.retention_days)
              AND ${expired('e')}
            ORDER BY e.completed_at, e.id LIMIT ${take}) x
          WHERE ${days}::int IS NULL OR s.retention_days < ${days}::int)
       ) found ORDER BY completed_at, id LIMIT ${take}`,
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
}
