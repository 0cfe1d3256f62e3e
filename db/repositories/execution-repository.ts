/**
 * The `executions` table. Writes are idempotent (activities may be retried): a
 * repeated idempotency key is decided by the unique index, not by a read, and
 * the final status is written only over a running (or waiting) execution.
 */
import { Repository, type EntityManager } from 'typeorm';
import { ExecutionEntity, type ExecutionStatus } from '../entities/execution';
import { poolQuery, rowsOf, selectColumns } from '../sql';
import { bind, raw, sql, type Bound, type Sql } from '../sql-builder';
import { auditInsertSql, type NewAuditEvent } from './audit-event-repository';
import { callerGrantsColumns, type CallerGrantsRead, type CallerKey } from './grant-repository';
import { nextEventSeqSql } from './execution-event-repository';
import { recordProgressSql, type RunProgress } from './execution-progress-sql';
import { settleStepsSql } from './execution-step-repository';

/** The concurrency key of one workflow a run held (its slot frees when the run ends). */
export interface FlowScope {
  organizationId: string;
  workflowId: string;
  flowKey: string;
}

/** What an end's UPDATE answers, for `heldFlowScope` to read. */
export const FINISHED_RETURNING = raw('RETURNING id, organization_id, workflow_id, flow_key, flow_kind');

/** The concurrency key the run ended by the UPDATE `cte` held, if any (its slot frees: executions/flow/end-run.ts). */
export function heldFlowScope(cte: string): Sql {
  return sql`SELECT organization_id AS "organizationId", workflow_id AS "workflowId", flow_key AS "flowKey" FROM ${raw(cte)}
        WHERE flow_kind = 'concurrency' AND flow_key IS NOT NULL`;
}

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

export const INSERT_COLUMNS =
  raw(`id, organization_id, workflow_id, workflow_key, revision, alias, status, inputs, trigger, correlation_key,
  idempotency_key, parent_execution_id, temporal_namespace, created_by, rerun_of, rerun_kind`);
export const ON_KEY_CONFLICT = raw(
  'ON CONFLICT (organization_id, workflow_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING',
);

/**
 * The values of INSERT_COLUMNS, and the idempotency key's three (bound: a statement that also looks the key up
 * names them again, with the same parameters). A flow-controlled start (./execution-admission-repository.ts)
 * decides the id and the status in SQL.
 */
export function insertValues(
  execution: NewExecution,
  choice: { id?: Sql; status?: Sql } = {},
): { values: Sql; key: { organizationId: Bound; workflowId: Bound; idempotencyKey: Bound } } {
  const key = {
    organizationId: bind(execution.organizationId),
    workflowId: bind(execution.workflowId),
    idempotencyKey: bind(execution.idempotencyKey),
  };
  // Typed, as they are also selected (insertCounted), where PostgreSQL cannot infer a parameter's type from its column.
  const id = choice.id ?? sql`${execution.id}::text`;
  const status = choice.status ?? raw(`'running'`);
  const values = sql`${id}, ${key.organizationId}::text, ${key.workflowId}::text, ${execution.workflowKey}::text,
  ${execution.revision}::integer, ${execution.alias}::text, ${status}, ${JSON.stringify(execution.inputs)}::jsonb,
  ${JSON.stringify(execution.trigger)}::jsonb, ${execution.correlationKey}::text, ${key.idempotencyKey}::text,
  ${execution.parentExecutionId}::text, ${execution.temporalNamespace}::text, ${execution.createdBy}::text,
  ${execution.rerunOf ?? null}::text, ${execution.rerunKind ?? null}::text`;
  return { values, key };
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
    const insert = sql`INSERT INTO executions (${INSERT_COLUMNS}) VALUES (${insertValues(execution).values}) ${ON_KEY_CONFLICT} RETURNING ${raw(selectColumns(this.manager, ExecutionEntity))}`;
    const statement =
      audit === undefined
        ? insert
        : sql`WITH e AS (${insert}), a AS (${auditInsertSql(audit, 'e')} RETURNING id::float8 AS id)
           SELECT e.*, a.id AS "__auditId" FROM e, a`;
    // Once per start: on the pool as a prepared statement (its text is one of these two, every value a parameter).
    const [inserted] = await poolQuery<ExecutionEntity & { __auditId?: number }>(
      this.manager,
      audit === undefined ? 'execution-insert' : 'execution-insert-audited',
      statement,
    );
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
    const { values, key } = insertValues(execution);
    const inserted = await rowsOf<ExecutionEntity>(
      this.manager,
      sql`WITH counted AS (
         UPDATE executions SET descendants = descendants + 1
         WHERE id = ${tree.rootExecutionId} AND descendants < ${tree.budget}
           AND NOT EXISTS (SELECT 1 FROM executions WHERE organization_id = ${key.organizationId} AND workflow_id = ${key.workflowId} AND idempotency_key = ${key.idempotencyKey})
         RETURNING id
       )
       INSERT INTO executions (${INSERT_COLUMNS}) SELECT ${values} FROM counted ${ON_KEY_CONFLICT}
       RETURNING ${raw(selectColumns(this.manager, ExecutionEntity))}`,
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
      // The organization twice, as two parameters: users key it by bigint, executions hold text.
      sql`SELECT ${callerGrantsColumns(caller.id, caller.organizationId, caller.type)},
              e.id IS NOT NULL AS "executionFound", ${raw(selectColumns(this.manager, ExecutionEntity, 'e'))},
              w.id IS NOT NULL AS "workflowFound", w.nrn AS "workflowNrn"
         FROM (SELECT 1) AS caller
         LEFT JOIN executions e ON e.organization_id = ${caller.organizationId} AND e.id = ${id}
         LEFT JOIN workflows w ON w.organization_id = e.organization_id AND w.id = e.workflow_id`,
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

  /** Once per start: on the pool as a prepared statement (the query builder's UPDATE cost more than the statement). */
  async setTemporalRunId(id: string, runId: string): Promise<void> {
    await poolQuery(this.manager, 'execution-run-id', `UPDATE executions SET temporal_run_id = $1, updated_at = now() WHERE id = $2`, [
      runId,
      id,
    ]);
  }

  /**
   * Writes the final state over a running (or waiting) execution, with its end
   * event for the event stream, in one statement; a finished one is left as it is.
   * The step runs still recorded as running end with it (`settleStepsSql`), so a
   * read of an ended execution shows no step running. Answers the flow-control
   * key the run held, when it ended here and held one (executions/flow/end-run.ts
   * then promotes the next queued run of that key).
   */
  async finish(
    executionId: string,
    status: ExecutionStatus,
    outputs: Record<string, unknown> | null,
    error: Record<string, unknown> | null,
    /** Position of the end event (from the workflow); without it (terminate), right after the last recorded event. */
    eventSeq?: number,
  ): Promise<FlowScope | undefined> {
    const [id, statusValue, errorJson] = [bind(executionId), bind(status), bind(error === null ? null : JSON.stringify(error))];
    // Once per run, from the worker's last local activity: on the pool as a prepared statement.
    const [ended] = await poolQuery<FlowScope>(
      this.manager,
      'execution-finish',
      sql`WITH finished AS (
         UPDATE executions SET status = ${statusValue}, outputs = ${outputs === null ? null : JSON.stringify(outputs)}, error = ${errorJson},
                completed_at = now(), updated_at = now(), run_health = NULL
         WHERE id = ${id} AND status IN ('running', 'waiting') ${FINISHED_RETURNING}
       ),
       settled AS (${settleStepsSql(raw('(SELECT id FROM finished)'), statusValue)}),
       ended AS (
         INSERT INTO execution_events (execution_id, seq, type, data)
         SELECT id, COALESCE(${eventSeq ?? null}::int, ${nextEventSeqSql(id)}),
                'execution.' || ${statusValue}, jsonb_build_object('status', ${statusValue}::text, 'error', ${errorJson}::jsonb)
         FROM finished
         ON CONFLICT DO NOTHING
       )
       ${heldFlowScope('finished')}`,
    );
    return ended;
  }

  /** Records what a batch reports of the run (`recordProgressSql`) outside a batch's single statement. */
  async recordProgress(executionId: string, progress: RunProgress): Promise<void> {
    if (progress.variables === undefined && progress.waiting === undefined) return;
    await rowsOf(this.manager, recordProgressSql(executionId, progress));
  }

  /** The status and the variables the run recorded last (`{}` before its first record), in one read. */
  async statusAndVariablesOf(executionId: string): Promise<{ status: ExecutionStatus; variables: Record<string, unknown> } | undefined> {
    const [row] = await rowsOf<{ status: ExecutionStatus; variables: Record<string, unknown> | null }>(
      this.manager,
      `SELECT status, variables FROM executions WHERE id = $1`,
      [executionId],
    );
    return row && { status: row.status, variables: row.variables ?? {} };
  }
}
