/**
 * The `workflow_revisions` table: immutable, numbered snapshots. A new revision
 * is appended under the workflow's row lock (WorkflowRepository.lockByRef), so
 * concurrent publishes of one workflow get contiguous numbers; the statement
 * that appends it also moves `latest` and the workflow's fields (one round trip).
 */
import { Repository, type EntityManager } from 'typeorm';
import { WorkflowEntity } from '../entities/workflow';
import { WorkflowAliasEntity } from '../entities/workflow-alias';
import { WorkflowRevisionEntity } from '../entities/workflow-revision';
import { poolQuery, rowsOf, selectColumns } from '../sql';
import { bind, raw, sql, type Sql } from '../sql-builder';
import { callerGrantsColumns, type CallerGrantsRead, type CallerKey } from './grant-repository';
import { pageOf } from './paged-rows';
import { selectColumnsExcept } from './select-except';
import type { NewRevision, Published, WorkflowFields } from './workflow-repository';

/** A listed revision: the definition only when asked for; its source text never (it is read on its own, {@link findSource}). */
export type ListedRevision = Omit<WorkflowRevisionEntity, 'definition' | 'source'> & {
  definition: WorkflowRevisionEntity['definition'] | null;
};

/** Which revision an execution runs: an explicit revision number wins, else the named alias (default `latest`). */
export interface Runnable {
  workflow: WorkflowEntity;
  revision: number;
  alias: string | null;
  definition: WorkflowRevisionEntity['definition'];
  /**
   * The workflow of the run `choice.reachFrom` names, as it is now (null: no such run or
   * workflow); only when asked. A sub-workflow's parent, read in the same statement.
   */
  reachFrom?: Pick<WorkflowEntity, 'nrn' | 'organizationId'> | null;
  /** The alias's own flow control (executions/flow/), over the definition's; absent or null: the definition's. */
  aliasFlowControl?: Record<string, unknown> | null;
}

/**
 * Which revision: an explicit revision wins, else the alias (default `latest`). `flowAlias`: with an explicit
 * revision, the alias whose flow control applies all the same (a webhook's or cron tick's alias, a re-run's).
 */
export interface RunnableChoice {
  alias?: string;
  revision?: number;
  reachFrom?: string;
  flowAlias?: string;
}

export type RunnableMiss = 'workflow-not-found' | 'alias-not-found' | 'revision-not-found';

export class WorkflowRevisionRepository extends Repository<WorkflowRevisionEntity> {
  constructor(manager: EntityManager) {
    super(WorkflowRevisionEntity, manager);
  }

  async findRevision(workflowId: string, revision: number): Promise<WorkflowRevisionEntity | null> {
    return this.findOneBy({ workflowId, revision });
  }

  /**
   * The revision an execution runs, with its workflow, in one statement: by id or
   * key within the organization, then the explicit revision or the alias's.
   * Shared by the execute endpoint, webhook and cron starts, and sub-workflow children;
   * with `reachFrom` (an execution id), also the NRN of that run's workflow.
   */
  async findRunnable(organizationId: string, ref: string, choice: RunnableChoice): Promise<Runnable | RunnableMiss> {
    const [row] = await rowsOf<RunnableRow>(this.manager, runnableSql(this.manager, organizationId, ref, choice));
    if (!row) return 'workflow-not-found';
    return runnableOf(row, choice).found;
  }

  /**
   * {@link findRunnable} and, in the same statement, the caller's grants as access checks read them
   * (callerGrantsColumns): all a start needs before it is authorized, in one round trip. Undefined: no such workflow
   * (its grants are not read, as a missing workflow answers not found before they are looked at). An alias or
   * revision miss comes with the workflow, whose NRN decides whether the caller may learn of it.
   */
  async findRunnableWithGrants(
    caller: CallerKey,
    ref: string,
    choice: { alias?: string; revision?: number },
  ): Promise<
    { workflow: WorkflowEntity; found: Runnable | Exclude<RunnableMiss, 'workflow-not-found'>; grants: CallerGrantsRead } | undefined
  > {
    // Straight on the pool, as a prepared statement (as GrantRepository.activeOfCaller reads the grants).
    const [row] = await poolQuery<RunnableRow & CallerGrantsRead>(
      this.manager,
      'runnable-with-grants',
      runnableSql(this.manager, caller.organizationId, ref, choice, caller),
    );
    if (!row) return undefined;
    const { held, userType, ...runnable } = row;
    return { ...runnableOf(runnable, choice), grants: { held, userType } };
  }

  /** Newest first, paged; the definitions only with `includeDefinition` (they are large). */
  async listPage(
    workflowId: string,
    options: { includeDefinition: boolean; page: number; limit: number },
  ): Promise<{ rows: ListedRevision[]; total: number }> {
    const columns = options.includeDefinition
      ? selectColumnsExcept(this.manager, WorkflowRevisionEntity, ['source'])
      : `${selectColumnsExcept(this.manager, WorkflowRevisionEntity, ['definition', 'source'])}, NULL::jsonb AS definition`;
    return pageOf<ListedRevision>(this.manager, {
      matching: sql`SELECT ${raw(columns)} FROM workflow_revisions WHERE workflow_id = ${workflowId}`,
      orderBy: '"revision" DESC',
      offset: (options.page - 1) * options.limit,
      limit: options.limit,
      key: 'revision',
    });
  }

  /** A revision's source text and its format (both null for a revision published before sources were kept); undefined: no such revision. */
  async findSource(workflowId: string, revision: number): Promise<Pick<WorkflowRevisionEntity, 'source' | 'sourceFormat'> | undefined> {
    const [row] = await rowsOf<Pick<WorkflowRevisionEntity, 'source' | 'sourceFormat'>>(
      this.manager,
      `SELECT source, source_format AS "sourceFormat" FROM workflow_revisions WHERE workflow_id = $1 AND revision = $2`,
      [workflowId, revision],
    );
    return row;
  }

  /**
   * Replaces the source of a revision whose content a publish found unchanged (mode `overwritten`: only
   * workflow-level fields, comments or layout differ), so that the revision's source is the text last
   * published for it. The definition that runs is never touched. The caller holds the workflow's row lock.
   */
  async keepSource(workflowId: string, revision: number, source: { source: string; sourceFormat: 'yaml' | 'json' }): Promise<void> {
    await rowsOf(this.manager, `UPDATE workflow_revisions SET source = $3, source_format = $4 WHERE workflow_id = $1 AND revision = $2`, [
      workflowId,
      revision,
      source.source,
      source.sourceFormat,
    ]);
  }

  /**
   * The newest revision (without its source text), and whether its content equals `definitionJson` apart from
   * the workflow-level keys (jsonb equality ignores key order, so a reformatted file
   * with the same content is recognised).
   */
  async compareWith(
    workflowId: string,
    revision: number,
    definitionJson: string,
    workflowLevelKeys: string[],
  ): Promise<{ revision: WorkflowRevisionEntity; same: boolean }> {
    const [row] = await rowsOf<WorkflowRevisionEntity & { same: boolean }>(
      this.manager,
      // Not its source (up to BODY_LIMIT_BYTES, on every publish): the publish replaces it or leaves it alone.
      `SELECT ${selectColumnsExcept(this.manager, WorkflowRevisionEntity, ['source'])}, NULL::text AS source,
         (definition - $3::text[]) = ($4::jsonb - $3::text[]) AS same
       FROM workflow_revisions WHERE workflow_id = $1 AND revision = $2`,
      [workflowId, revision, workflowLevelKeys, definitionJson],
    );
    const { same, ...entity } = row;
    return { revision: entity, same };
  }

  /**
   * Appends revision `next` (the caller holds the workflow's row lock and read its
   * latest number), points `latest` at it and writes the workflow-level fields,
   * in one statement.
   */
  async append(workflowId: string, next: number, fields: WorkflowFields, revision: NewRevision): Promise<Published> {
    const [row] = await rowsOf<{ workflow: WorkflowEntity; alias: WorkflowAliasEntity; revisionCreatedAt: Date }>(
      this.manager,
      `WITH r AS (
         INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, release_notes, semantic_version, engine_version, source, source_format)
         VALUES ($1, $7, $8::jsonb, $9, $10, $11, $12, $13, $14, $15) RETURNING created_at
       ), a AS (
         UPDATE workflow_aliases SET revision = $7, updated_at = now(), updated_by = $10 WHERE workflow_id = $1 AND name = 'latest'
         RETURNING ${selectColumns(this.manager, WorkflowAliasEntity)}
       ), w AS (
         UPDATE workflows SET name = $2, description = $3, path = $4, nrn = $5, metadata = $6::jsonb, updated_at = now(), latest_revision = $7
         WHERE id = $1 RETURNING ${selectColumns(this.manager, WorkflowEntity)}
       )
       SELECT row_to_json(w) AS workflow, row_to_json(a) AS alias, r.created_at AS "revisionCreatedAt" FROM w, a, r`,
      [
        workflowId,
        fields.name,
        fields.description,
        fields.path,
        fields.nrn,
        fields.metadata === null ? null : JSON.stringify(fields.metadata),
        next,
        revision.definitionJson,
        revision.contentHash,
        revision.createdBy,
        revision.releaseNotes,
        revision.semanticVersion,
        revision.engineVersion,
        revision.source ?? null,
        revision.sourceFormat ?? null,
      ],
    );
    const { definitionJson: _json, source = null, sourceFormat = null, ...revisionFields } = revision;
    return {
      // row_to_json turns timestamps into strings; bring back Dates.
      workflow: { ...row.workflow, createdAt: new Date(row.workflow.createdAt), updatedAt: new Date(row.workflow.updatedAt) },
      latestAlias: { ...row.alias, updatedAt: new Date(row.alias.updatedAt) },
      revision: { workflowId, revision: next, ...revisionFields, source, sourceFormat, createdAt: row.revisionCreatedAt },
    };
  }

  /** Trigger ids and kinds of the given revisions, read inside the stored definitions (not the whole documents). */
  async triggersOf(workflowId: string, revisions: number[]): Promise<Map<number, Array<{ id: string; pluginType: string }>>> {
    const rows = await rowsOf<{ revision: number; triggers: Array<{ id: string; pluginType: string }> }>(
      this.manager,
      `SELECT revision, COALESCE((SELECT jsonb_agg(jsonb_build_object('id', t->'id', 'pluginType', t->'pluginType'))
         FROM jsonb_array_elements(CASE WHEN jsonb_typeof(definition->'triggers') = 'array' THEN definition->'triggers' ELSE '[]'::jsonb END) t), '[]'::jsonb) AS triggers
       FROM workflow_revisions WHERE workflow_id = $1 AND revision = ANY($2::int[])`,
      [workflowId, revisions],
    );
    return new Map(rows.map((row) => [row.revision, row.triggers]));
  }
}

type RunnableRow = WorkflowEntity & {
  aliasRevision: number | null;
  aliasFlowControl: Record<string, unknown> | null;
  definitionFound: WorkflowRevisionEntity['definition'] | null;
  fromNrn: string | null;
  fromOrganizationId: string | null;
};

/**
 * The statement of findRunnable; with `caller`, also the caller's grants (callerGrantsColumns; the organization
 * is a parameter of its own there, as users key it by bigint where workflows hold text).
 */
function runnableSql(manager: EntityManager, organizationId: string, ref: string, choice: RunnableChoice, caller?: CallerKey): Sql {
  const grants = caller === undefined ? raw('') : sql`, ${callerGrantsColumns(caller.id, caller.organizationId, caller.type)}`;
  const reference = bind(ref);
  // With an explicit revision, the alias whose flow control applies all the same (flowAlias) is joined instead.
  return sql`SELECT ${raw(selectColumns(manager, WorkflowEntity, 'w'))}, a.revision AS "aliasRevision", a.flow_control AS "aliasFlowControl",
         r.definition AS "definitionFound", fw.nrn AS "fromNrn", fw.organization_id AS "fromOrganizationId"${grants}
       FROM workflows w
       LEFT JOIN workflow_aliases a ON a.workflow_id = w.id AND a.name = COALESCE(${aliasOf(choice)}::text, ${choice.flowAlias ?? null}::text)
       LEFT JOIN workflow_revisions r ON r.workflow_id = w.id AND r.revision = COALESCE(${choice.revision ?? null}::int, a.revision)
       LEFT JOIN executions fe ON fe.id = ${choice.reachFrom ?? null}::text
       LEFT JOIN workflows fw ON fw.id = fe.workflow_id
       WHERE w.organization_id = ${organizationId} AND (w.id = ${reference} OR w.key = ${reference})`;
}

/** An explicit revision wins, else the named alias (default `latest`). */
const aliasOf = (choice: { alias?: string; revision?: number }): string | null =>
  choice.revision === undefined ? (choice.alias ?? 'latest') : null;

function runnableOf(
  row: RunnableRow,
  choice: RunnableChoice,
): { workflow: WorkflowEntity; found: Runnable | Exclude<RunnableMiss, 'workflow-not-found'> } {
  const { aliasRevision, aliasFlowControl, definitionFound, fromNrn, fromOrganizationId, ...workflow } = row;
  const alias = aliasOf(choice);
  if (alias !== null && aliasRevision === null) return { workflow, found: 'alias-not-found' };
  if (definitionFound === null) return { workflow, found: 'revision-not-found' };
  const runnable: Runnable = { workflow, revision: choice.revision ?? (aliasRevision as number), alias, definition: definitionFound };
  if (aliasFlowControl) runnable.aliasFlowControl = aliasFlowControl;
  if (choice.reachFrom !== undefined)
    runnable.reachFrom = fromOrganizationId === null ? null : { nrn: fromNrn, organizationId: fromOrganizationId };
  return { workflow, found: runnable };
}
