/**
 * Executions, step records and logs. Writes are idempotent (activities may be
 * retried): step records upsert by (execution, step, run), logs insert by
 * sequence number and ignore what is already there, and the final status is
 * written only over a running execution.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { StepEvent, StepRecord } from '../../workflows/engine';
import { q } from './workflow-rows';

type Db = DataSource | EntityManager;

export type ExecutionStatus = 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled' | 'terminated';

export interface ExecutionRow {
  id: string;
  organizationId: string;
  workflowId: string;
  workflowKey: string | null;
  revision: number;
  alias: string | null;
  status: ExecutionStatus;
  inputs: Record<string, unknown>;
  outputs: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  trigger: Record<string, unknown>;
  correlationKey: string | null;
  idempotencyKey: string | null;
  parentExecutionId: string | null;
  temporalRunId: string | null;
  temporalNamespace: string;
  createdBy: string | null;
  createdAt: Date;
  completedAt: Date | null;
  updatedAt: Date;
}

const COLUMNS = `id, organization_id AS "organizationId", workflow_id AS "workflowId", workflow_key AS "workflowKey", revision, alias, status,
  inputs, outputs, error, trigger, correlation_key AS "correlationKey", idempotency_key AS "idempotencyKey",
  parent_execution_id AS "parentExecutionId", temporal_run_id AS "temporalRunId", temporal_namespace AS "temporalNamespace",
  created_by AS "createdBy", created_at AS "createdAt", completed_at AS "completedAt", updated_at AS "updatedAt"`;

export type NewExecution = Pick<
  ExecutionRow,
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
>;

/**
 * Inserts a running execution. With an idempotency key already used for the
 * workflow, nothing is inserted and the existing execution comes back with
 * `created: false`: the unique index decides, not a prior read.
 */
export async function insertExecution(db: Db, execution: NewExecution): Promise<{ row: ExecutionRow; created: boolean }> {
  const inserted = (await q(
    db,
    `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, alias, status, inputs, trigger, correlation_key,
       idempotency_key, parent_execution_id, temporal_namespace, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, 'running', $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (organization_id, workflow_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
     RETURNING ${COLUMNS}`,
    [
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
    ],
  )) as ExecutionRow[];
  if (inserted.length > 0) return { row: inserted[0], created: true };
  const existing = (await q(
    db,
    `SELECT ${COLUMNS} FROM executions WHERE organization_id = $1 AND workflow_id = $2 AND idempotency_key = $3`,
    [execution.organizationId, execution.workflowId, execution.idempotencyKey],
  )) as ExecutionRow[];
  return { row: existing[0], created: false };
}

export async function findExecution(db: Db, organizationId: string, id: string): Promise<ExecutionRow | undefined> {
  const rows = (await q(db, `SELECT ${COLUMNS} FROM executions WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ])) as ExecutionRow[];
  return rows[0];
}

/** By id alone, for anonymous callbacks that carry the execution id and an unguessable token. */
export async function findExecutionAnywhere(db: Db, id: string): Promise<ExecutionRow | undefined> {
  const rows = (await q(db, `SELECT ${COLUMNS} FROM executions WHERE id = $1`, [id])) as ExecutionRow[];
  return rows[0];
}

export async function deleteExecution(db: Db, id: string): Promise<void> {
  await q(db, `DELETE FROM executions WHERE id = $1`, [id]);
}

export async function setTemporalRunId(db: Db, id: string, runId: string): Promise<void> {
  await q(db, `UPDATE executions SET temporal_run_id = $2, updated_at = now() WHERE id = $1`, [id, runId]);
}

/**
 * Top-level executions recorded but never linked to a Temporal run, older than
 * `graceMs`, oldest first: the candidates of the start reconciler
 * (executions/reconcile-starts.ts). One statement over the partial index
 * executions_unstarted; rows of other namespaces are left to the deployment
 * that owns them.
 *
 * - `parent_execution_id IS NULL`: a sub-workflow child is recorded by its
 *   parent's prepareChild activity and started by the parent workflow as a
 *   child workflow; its temporal_run_id stays NULL for good. The parent owns it.
 * - `trigger->>'source' <> 'cron'`: a cron tick's row is written by its own,
 *   already running Temporal run (prepareScheduledExecution, with the run's
 *   workflow id as execution id), which records its run id in the same
 *   activity and retries until it has. That run owns it; starting it again
 *   would run the tick twice.
 * - `waiting` as well as `running`: only a workflow writes `waiting`, so such a
 *   row always has a run; the reconciler finds it and records its id.
 */
export async function findUnstartedExecutions(
  db: Db,
  options: { temporalNamespace: string; graceMs: number; limit: number; organizationId?: string },
): Promise<ExecutionRow[]> {
  return (await q(
    db,
    `SELECT ${COLUMNS} FROM executions
     WHERE temporal_run_id IS NULL AND parent_execution_id IS NULL AND status IN ('running', 'waiting')
       AND trigger->>'source' IS DISTINCT FROM 'cron'
       AND temporal_namespace = $1 AND created_at <= now() - $2::double precision * interval '1 millisecond'
       AND ($3::text IS NULL OR organization_id = $3)
     ORDER BY created_at, id LIMIT $4`,
    [options.temporalNamespace, options.graceMs, options.organizationId ?? null, options.limit],
  )) as ExecutionRow[];
}

export interface ExecutionFilter {
  workflowId?: string;
  alias?: string;
  status?: ExecutionStatus;
  correlationKey?: string;
  from?: Date;
  to?: Date;
}

/** Newest first, paged; `total` counts the filtered rows. */
export async function listExecutions(
  db: Db,
  organizationId: string,
  filter: ExecutionFilter,
  page: { page: number; limit: number },
): Promise<{ rows: ExecutionRow[]; total: number }> {
  const where = ['organization_id = $1'];
  const params: unknown[] = [organizationId];
  const add = (clause: string, value: unknown) => {
    params.push(value);
    where.push(clause.replace('?', `$${params.length}`));
  };
  if (filter.workflowId) add('workflow_id = ?', filter.workflowId);
  if (filter.alias) add('alias = ?', filter.alias);
  if (filter.status) add('status = ?', filter.status);
  if (filter.correlationKey) add('correlation_key = ?', filter.correlationKey);
  if (filter.from) add('created_at >= ?', filter.from);
  if (filter.to) add('created_at < ?', filter.to);
  const condition = where.join(' AND ');
  const offset = (page.page - 1) * page.limit;
  const [rows, counted] = await Promise.all([
    q(
      db,
      `SELECT ${COLUMNS} FROM executions WHERE ${condition} ORDER BY created_at DESC, id DESC LIMIT ${page.limit} OFFSET ${offset}`,
      params,
    ),
    q(db, `SELECT count(*)::int AS total FROM executions WHERE ${condition}`, params),
  ]);
  return { rows: rows as ExecutionRow[], total: (counted as Array<{ total: number }>)[0].total };
}

/** Step records and logs of one batch, in one transaction; replaying a batch changes nothing. */
export async function recordExecutionEvents(
  dataSource: DataSource,
  executionId: string,
  firstEventSeq: number,
  events: StepEvent[],
  logs: Array<{
    seq: number;
    stepSeq: number;
    stepId: string;
    level: string;
    message: string;
    metadata?: Record<string, unknown>;
    timestamp: string;
  }>,
): Promise<void> {
  // The last event of each step run wins: only that state is written.
  const latest = new Map<string, StepRecord>();
  // Waits opened in this batch (minus those already released in it), and waits released.
  const opened = new Map<string, { waitId: string; stepId: string; signalNames: string[]; correlationKey: string | null; since: string }>();
  const closed: string[] = [];
  for (const event of events) {
    if (event.type === 'step.completed' || event.type === 'step.failed') latest.set(`${event.stepId}\u0000${event.run}`, event.record);
    else if (event.type === 'step.started') {
      latest.set(`${event.stepId}\u0000${event.run}`, {
        stepId: event.stepId,
        status: 'running',
        run: event.run,
        items: [],
        outputs: {},
        activePorts: [],
        startedAt: event.at,
      });
    } else if (event.type === 'step.skipped') {
      latest.set(`${event.stepId}\u0000skipped`, {
        stepId: event.stepId,
        status: 'skipped',
        run: 0,
        items: [],
        outputs: {},
        activePorts: [],
        completedAt: event.at,
      });
    } else if (event.type === 'wait.started') {
      opened.set(event.waitId, {
        waitId: event.waitId,
        stepId: event.stepId,
        signalNames: event.signalNames,
        correlationKey: event.correlationKey ?? null,
        since: event.at,
      });
    } else if (!opened.delete(event.waitId)) closed.push(event.waitId);
  }
  const records = [...latest.values()];
  await dataSource.transaction(async (manager) => {
    if (events.length > 0) {
      await q(
        manager,
        `INSERT INTO execution_events (execution_id, seq, type, data)
         SELECT $1, $2::int + (t.n - 1)::int, t.e->>'type', t.e->'data' FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS t(e, n)
         ON CONFLICT DO NOTHING`,
        [executionId, firstEventSeq, JSON.stringify(events.map(streamEvent))],
      );
    }
    if (opened.size > 0) {
      await q(
        manager,
        `INSERT INTO execution_waits (execution_id, wait_id, step_id, signal_names, correlation_key, since)
         SELECT $1, w->>'waitId', w->>'stepId', ARRAY(SELECT jsonb_array_elements_text(w->'signalNames')), w->>'correlationKey', (w->>'since')::timestamptz
         FROM jsonb_array_elements($2::jsonb) AS w
         ON CONFLICT DO NOTHING`,
        [executionId, JSON.stringify([...opened.values()])],
      );
    }
    if (closed.length > 0)
      await q(manager, `DELETE FROM execution_waits WHERE execution_id = $1 AND wait_id = ANY($2::text[])`, [executionId, closed]);
    if (records.length > 0) {
      await q(
        manager,
        `INSERT INTO execution_steps (execution_id, step_id, run, status, record, started_at, completed_at)
         SELECT $1, r->>'stepId', (r->>'run')::int, r->>'status', r, (r->>'startedAt')::timestamptz, (r->>'completedAt')::timestamptz
         FROM jsonb_array_elements($2::jsonb) AS r
         ON CONFLICT (execution_id, step_id, run) DO UPDATE
           SET status = EXCLUDED.status, record = EXCLUDED.record,
               started_at = COALESCE(execution_steps.started_at, EXCLUDED.started_at), completed_at = EXCLUDED.completed_at`,
        [executionId, JSON.stringify(records)],
      );
    }
    if (logs.length > 0) {
      await q(
        manager,
        `INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, metadata, logged_at)
         SELECT $1, (l->>'seq')::int, l->>'stepId', (l->>'stepSeq')::int, l->>'level', l->>'message', l->'metadata', (l->>'timestamp')::timestamptz
         FROM jsonb_array_elements($2::jsonb) AS l
         ON CONFLICT DO NOTHING`,
        [executionId, JSON.stringify(logs)],
      );
    }
    // Waiting when every step still running is parked on an open wait: lists and filters can then say so.
    if (opened.size > 0 || closed.length > 0) {
      await q(
        manager,
        `UPDATE executions e SET updated_at = now(), status = CASE
           WHEN EXISTS (SELECT 1 FROM execution_waits w WHERE w.execution_id = e.id)
            AND NOT EXISTS (SELECT 1 FROM execution_steps s WHERE s.execution_id = e.id AND s.status = 'running'
                            AND NOT EXISTS (SELECT 1 FROM execution_waits w WHERE w.execution_id = e.id AND w.step_id = s.step_id))
           THEN 'waiting' ELSE 'running' END
         WHERE e.id = $1 AND e.status IN ('running', 'waiting')`,
        [executionId],
      );
    }
  });
}

/**
 * Writes the final state over a running (or waiting) execution, with its end
 * event for the event stream, in one statement; a finished one is left as it is.
 */
export async function finishExecutionRecord(
  db: Db,
  executionId: string,
  status: ExecutionStatus,
  outputs: Record<string, unknown> | null,
  error: Record<string, unknown> | null,
  /** Position of the end event (from the workflow); without it (terminate), right after the last recorded event. */
  eventSeq?: number,
): Promise<void> {
  await q(
    db,
    `WITH finished AS (
       UPDATE executions SET status = $2, outputs = $3, error = $4, completed_at = now(), updated_at = now()
       WHERE id = $1 AND status IN ('running', 'waiting') RETURNING id
     )
     INSERT INTO execution_events (execution_id, seq, type, data)
     SELECT id, COALESCE($5::int, (SELECT COALESCE(max(seq) + 1, 0) FROM execution_events WHERE execution_id = $1)),
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

/** What the event stream shows of a step event: small, never the step's items. */
function streamEvent(event: StepEvent): { type: string; data: Record<string, unknown> } {
  switch (event.type) {
    case 'step.completed':
    case 'step.failed':
      return {
        type: event.type,
        data: {
          stepId: event.stepId,
          run: event.run,
          at: event.at,
          status: event.record.status,
          activePorts: event.record.activePorts,
          error: event.record.error ?? null,
        },
      };
    case 'wait.started':
      return {
        type: event.type,
        data: { stepId: event.stepId, signalNames: event.signalNames, correlationKey: event.correlationKey ?? null, at: event.at },
      };
    default: {
      const { type, ...data } = event;
      return { type, data };
    }
  }
}

export interface StreamedEvent {
  seq: number;
  type: string;
  data: Record<string, unknown>;
}

/**
 * The events right after `afterSeq`, in order and without gaps: a batch that
 * has not committed yet ends the list, so a reader never skips past it.
 */
export async function eventsAfter(db: Db, executionId: string, afterSeq: number, limit = 500): Promise<StreamedEvent[]> {
  const rows = (await q(
    db,
    `SELECT seq, type, data FROM execution_events WHERE execution_id = $1 AND seq > $2 ORDER BY seq LIMIT ${limit}`,
    [executionId, afterSeq],
  )) as StreamedEvent[];
  const contiguous: StreamedEvent[] = [];
  for (const row of rows) {
    if (row.seq !== afterSeq + 1 + contiguous.length) break;
    contiguous.push(row);
  }
  return contiguous;
}

export async function setExecutionStatus(db: Db, executionId: string, from: ExecutionStatus[], to: ExecutionStatus): Promise<void> {
  await q(db, `UPDATE executions SET status = $3, updated_at = now() WHERE id = $1 AND status = ANY($2::text[])`, [executionId, from, to]);
}

export interface StepRow {
  stepId: string;
  run: number;
  status: string;
  record: StepRecord;
}

export async function listStepRecords(db: Db, executionId: string, stepId?: string): Promise<StepRow[]> {
  return (await q(
    db,
    `SELECT step_id AS "stepId", run, status, record FROM execution_steps
     WHERE execution_id = $1 AND ($2::text IS NULL OR step_id = $2) ORDER BY started_at NULLS LAST, step_id, run`,
    [executionId, stepId ?? null],
  )) as StepRow[];
}

export interface LogRow {
  seq: number;
  stepSeq: number;
  stepId: string;
  level: string;
  message: string;
  metadata: Record<string, unknown> | null;
  loggedAt: Date;
}

/**
 * One window of logs, `[cursor - limit, cursor)` by position (all logs, or one
 * step's), oldest first within the window. Both the total and the window are
 * index lookups: positions are dense, so the total is the last position + 1.
 */
export async function logWindow(
  db: Db,
  executionId: string,
  window: { limit: number; cursor?: number; stepId?: string },
): Promise<{ rows: LogRow[]; total: number; start: number }> {
  const byStep = window.stepId !== undefined;
  const position = byStep ? 'step_seq' : 'seq';
  const filter = byStep ? 'execution_id = $1 AND step_id = $2' : 'execution_id = $1';
  const base: unknown[] = byStep ? [executionId, window.stepId] : [executionId];
  const last = (await q(db, `SELECT max(${position}) AS last FROM execution_logs WHERE ${filter}`, base)) as Array<{ last: number | null }>;
  const total = last[0].last === null ? 0 : last[0].last + 1;
  const end = Math.min(window.cursor ?? total, total);
  const start = Math.max(0, end - window.limit);
  if (end <= start) return { rows: [], total, start };
  const rows = (await q(
    db,
    `SELECT seq, step_seq AS "stepSeq", step_id AS "stepId", level, message, metadata, logged_at AS "loggedAt"
     FROM execution_logs WHERE ${filter} AND ${position} >= $${base.length + 1} AND ${position} < $${base.length + 2} ORDER BY ${position}`,
    [...base, start, end],
  )) as LogRow[];
  return { rows, total, start };
}

/**
 * Running executions of an organization with an open wait on `signalName` under
 * `correlationKey`, oldest wait first. Rows are hints written by the workflow;
 * the delivering update decides whether the wait is still open.
 */
export async function findCorrelatedWaits(
  db: Db,
  organizationId: string,
  signalName: string,
  correlationKey: string,
  workflowId?: string,
): Promise<Array<{ executionId: string; temporalRunId: string | null }>> {
  return (await q(
    db,
    `SELECT DISTINCT ON (w.since, e.id) e.id AS "executionId", e.temporal_run_id AS "temporalRunId"
     FROM execution_waits w JOIN executions e ON e.id = w.execution_id
     WHERE w.correlation_key = $1 AND $2 = ANY(w.signal_names) AND e.organization_id = $3 AND e.status IN ('running', 'waiting')
       AND ($4::text IS NULL OR e.workflow_id = $4)
     ORDER BY w.since, e.id LIMIT 20`,
    [correlationKey, signalName, organizationId, workflowId ?? null],
  )) as Array<{ executionId: string; temporalRunId: string | null }>;
}
