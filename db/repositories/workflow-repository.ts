/**
 * The `workflows` table. Publishing writes the workflow, revision 1 and the
 * `latest` alias in one statement (data-modifying CTEs are atomic and cost one
 * round trip); a new revision onto an existing workflow is appended by
 * WorkflowRevisionRepository under the row lock taken here (`lockByRef`).
 */
import { Repository, type EntityManager } from 'typeorm';
import type { UserType } from '../entities/user';
import { WorkflowEntity } from '../entities/workflow';
import type { WorkflowAliasEntity } from '../entities/workflow-alias';
import type { WorkflowRevisionEntity } from '../entities/workflow-revision';
import { heldGrantsOf, heldGrantsSql, type HeldGrants } from './grant-repository';
import { pageOf, type Page } from './paged-rows';
import { poolQuery, rowsOf, selectColumns } from '../sql';
import { bind, join, raw, sql } from '../sql-builder';

/** The columns a publish writes from the definition (workflow-level fields). */
export type WorkflowFields = Pick<WorkflowEntity, 'name' | 'description' | 'path' | 'nrn' | 'metadata'>;

/** A revision about to be written: its entity fields plus the definition already serialized (once, by the caller). */
/** A revision to write; without a source (a revision written other than from a request body), none is kept. */
export type NewRevision = Omit<WorkflowRevisionEntity, 'workflowId' | 'revision' | 'createdAt' | 'source' | 'sourceFormat'> &
  Partial<Pick<WorkflowRevisionEntity, 'source' | 'sourceFormat'>> & { definitionJson: string };

export interface Published {
  workflow: WorkflowEntity;
  revision: WorkflowRevisionEntity;
  latestAlias: WorkflowAliasEntity;
}

export type PublishNewOutcome =
  ({ outcome: 'published' } & Published) | { outcome: 'grants-changed'; grantsNow: HeldGrants } | { outcome: 'key-exists' };

export interface WorkflowListFilter {
  path?: string;
  text?: string;
  page: number;
  limit: number;
}

export class WorkflowRepository extends Repository<WorkflowEntity> {
  constructor(manager: EntityManager) {
    super(WorkflowEntity, manager);
  }

  /**
   * Creates a workflow at revision 1 with `latest`, only while the publisher's
   * grants are still `under.grantsAsOf`, rendered by the same heldGrantsSql as
   * the read (so with the same user-type checks), in the same statement: the
   * permission decided on those grants holds at the instant of the write.
   * Answers `grants-changed` with the grants as they are now otherwise. With
   * `skipOnKeyConflict`, an existing key answers `key-exists` instead of
   * raising the unique violation.
   */
  async publishNew(
    ids: { id: string; organizationId: string; key: string | null },
    fields: WorkflowFields,
    revision: NewRevision,
    under: { userId: string; userType: UserType; grantsAsOf: string },
    skipOnKeyConflict = false,
  ): Promise<PublishNewOutcome> {
    const conflict = raw(skipOnKeyConflict ? 'ON CONFLICT (organization_id, key) WHERE key IS NOT NULL DO NOTHING' : '');
    // Each named once, wherever the statement uses it.
    const [id, organizationId, createdBy] = [bind(ids.id), bind(ids.organizationId), bind(revision.createdBy)];
    const [row] = await poolQuery<{ grantsNow: string; createdAt: Date | null; revisionCreatedAt: Date; aliasUpdatedAt: Date }>(
      this.manager,
      skipOnKeyConflict ? 'publish-workflow-upsert' : 'publish-workflow',
      sql`WITH held AS (SELECT ${heldGrantsSql(under.userId, organizationId, under.userType)} AS now),
       w AS (
         INSERT INTO workflows (id, organization_id, key, name, description, path, nrn, metadata, latest_revision)
         SELECT ${id}, ${organizationId}::bigint, ${ids.key}, ${fields.name}, ${fields.description}, ${fields.path}, ${fields.nrn},
                ${json(fields.metadata)}::jsonb, 1
           FROM held WHERE held.now = ${under.grantsAsOf} ${conflict}
         RETURNING created_at
       ), r AS (
         INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, release_notes, semantic_version, engine_version, source, source_format)
         SELECT ${id}, 1, ${revision.definitionJson}::jsonb, ${revision.contentHash}, ${createdBy}, ${revision.releaseNotes},
                ${revision.semanticVersion}, ${revision.engineVersion}, ${revision.source ?? null}, ${revision.sourceFormat ?? null} FROM w
         RETURNING created_at
       ), a AS (
         INSERT INTO workflow_aliases (workflow_id, name, revision, active, updated_by)
         SELECT ${id}, 'latest', 1, false, ${createdBy} FROM w
         RETURNING updated_at
       )
       SELECT held.now AS "grantsNow", w.created_at AS "createdAt", r.created_at AS "revisionCreatedAt", a.updated_at AS "aliasUpdatedAt"
         FROM held LEFT JOIN w ON true LEFT JOIN r ON true LEFT JOIN a ON true`,
    );
    if (row.grantsNow !== under.grantsAsOf) return { outcome: 'grants-changed', grantsNow: heldGrantsOf(row.grantsNow) };
    if (row.createdAt === null) return { outcome: 'key-exists' };
    const { definitionJson: _json, source = null, sourceFormat = null, ...revisionFields } = revision;
    return {
      outcome: 'published',
      workflow: { ...ids, ...fields, latestRevision: 1, createdAt: row.createdAt, updatedAt: row.createdAt },
      revision: { workflowId: ids.id, revision: 1, ...revisionFields, source, sourceFormat, createdAt: row.revisionCreatedAt },
      latestAlias: {
        workflowId: ids.id,
        name: 'latest',
        revision: 1,
        active: false,
        metadata: null,
        flowControl: null,
        updatedBy: revision.createdBy,
        updatedAt: row.aliasUpdatedAt,
      },
    };
  }

  /** By server id or client key, within one organization only. */
  async findByRef(organizationId: string, ref: string): Promise<WorkflowEntity | undefined> {
    const [row] = await rowsOf<WorkflowEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, WorkflowEntity)} FROM workflows WHERE organization_id = $1 AND (id = $2 OR key = $2)`,
      [organizationId, ref],
    );
    return row;
  }

  /** Locks the workflow row (by id or key) for the rest of the transaction: alias changes, publishes and deletes serialize on it. */
  async lockByRef(organizationId: string, ref: string): Promise<WorkflowEntity | undefined> {
    const [row] = await rowsOf<WorkflowEntity>(
      this.manager,
      `SELECT ${selectColumns(this.manager, WorkflowEntity)} FROM workflows WHERE organization_id = $1 AND (id = $2 OR key = $2) FOR UPDATE`,
      [organizationId, ref],
    );
    return row;
  }

  /** Newest first, paged; `total` counts the filtered rows (one round trip, also past the last page). */
  async listPage(organizationId: string, filter: WorkflowListFilter): Promise<Page<WorkflowEntity>> {
    const conditions = [sql`organization_id = ${organizationId}`];
    if (filter.path !== undefined && filter.path !== '/') {
      conditions.push(sql`(path = ${filter.path} OR path LIKE ${`${escapeLike(filter.path)}/%`})`);
    }
    if (filter.text !== undefined && filter.text !== '') {
      const text = bind(`%${escapeLike(filter.text)}%`);
      conditions.push(sql`(name ILIKE ${text} OR key ILIKE ${text} OR description ILIKE ${text})`);
    }
    return pageOf<WorkflowEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, WorkflowEntity))} FROM workflows WHERE ${join(conditions, ' AND ')}`,
      orderBy: '"createdAt" DESC, "id"',
      offset: (filter.page - 1) * filter.limit,
      limit: filter.limit,
    });
  }

  /** Sets the given workflow-level fields (only those present) and returns the row. */
  async updateFields(id: string, changes: Partial<WorkflowFields>): Promise<WorkflowEntity> {
    const sets = [raw('updated_at = now()')];
    for (const field of ['name', 'description', 'path', 'nrn', 'metadata'] as const) {
      if (!(field in changes)) continue;
      sets.push(field === 'metadata' ? sql`metadata = ${json(changes.metadata)}::jsonb` : sql`${raw(field)} = ${changes[field]}`);
    }
    const [row] = await rowsOf<WorkflowEntity>(
      this.manager,
      sql`UPDATE workflows SET ${join(sets, ', ')} WHERE id = ${id} RETURNING ${raw(selectColumns(this.manager, WorkflowEntity))}`,
    );
    return row;
  }
}

function json(value: Record<string, unknown> | null | undefined): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}
