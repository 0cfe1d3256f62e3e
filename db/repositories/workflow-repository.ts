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
import { poolQuery, rowsOf, selectColumns } from '../sql';

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
    const conflict = skipOnKeyConflict ? 'ON CONFLICT (organization_id, key) WHERE key IS NOT NULL DO NOTHING' : '';
    const [row] = await poolQuery<{ grantsNow: string; createdAt: Date | null; revisionCreatedAt: Date; aliasUpdatedAt: Date }>(
      this.manager,
      skipOnKeyConflict ? 'publish-workflow-upsert' : 'publish-workflow',
      `WITH held AS (SELECT ${heldGrantsSql('$15', '$2', '$17')} AS now),
       w AS (
         INSERT INTO workflows (id, organization_id, key, name, description, path, nrn, metadata, latest_revision)
         SELECT $1, $2::bigint, $3, $4, $5, $6, $7, $8::jsonb, 1 FROM held WHERE held.now = $16 ${conflict}
         RETURNING created_at
       ), r AS (
         INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, release_notes, semantic_version, engine_version, source, source_format)
         SELECT $1, 1, $9::jsonb, $10, $11, $12, $13, $14, $18, $19 FROM w
         RETURNING created_at
       ), a AS (
         INSERT INTO workflow_aliases (workflow_id, name, revision, active, updated_by)
         SELECT $1, 'latest', 1, false, $11 FROM w
         RETURNING updated_at
       )
       SELECT held.now AS "grantsNow", w.created_at AS "createdAt", r.created_at AS "revisionCreatedAt", a.updated_at AS "aliasUpdatedAt"
         FROM held LEFT JOIN w ON true LEFT JOIN r ON true LEFT JOIN a ON true`,
      [
        ids.id,
        ids.organizationId,
        ids.key,
        fields.name,
        fields.description,
        fields.path,
        fields.nrn,
        json(fields.metadata),
        revision.definitionJson,
        revision.contentHash,
        revision.createdBy,
        revision.releaseNotes,
        revision.semanticVersion,
        revision.engineVersion,
        under.userId,
        under.grantsAsOf,
        under.userType,
        revision.source ?? null,
        revision.sourceFormat ?? null,
      ],
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

  /** Newest first, paged; `total` counts the filtered rows (a window count, with a count query only past the last page). */
  async listPage(organizationId: string, filter: WorkflowListFilter): Promise<{ rows: WorkflowEntity[]; total: number }> {
    const where = ['organization_id = $1'];
    const params: unknown[] = [organizationId];
    if (filter.path !== undefined && filter.path !== '/') {
      params.push(filter.path, `${escapeLike(filter.path)}/%`);
      where.push(`(path = $${params.length - 1} OR path LIKE $${params.length})`);
    }
    if (filter.text !== undefined && filter.text !== '') {
      params.push(`%${escapeLike(filter.text)}%`);
      where.push(`(name ILIKE $${params.length} OR key ILIKE $${params.length} OR description ILIKE $${params.length})`);
    }
    params.push(filter.limit, (filter.page - 1) * filter.limit);
    const rows = await rowsOf<WorkflowEntity & { total: string }>(
      this.manager,
      `SELECT ${selectColumns(this.manager, WorkflowEntity)}, count(*) OVER () AS total FROM workflows WHERE ${where.join(' AND ')}
       ORDER BY created_at DESC, id LIMIT $${params.length - 1} OFFSET $${params.length}`,
      params,
    );
    let total = rows.length > 0 ? Number(rows[0].total) : 0;
    if (rows.length === 0 && filter.page > 1) {
      const [count] = await rowsOf<{ total: string }>(
        this.manager,
        `SELECT count(*) AS total FROM workflows WHERE ${where.join(' AND ')}`,
        params.slice(0, -2),
      );
      total = Number(count.total);
    }
    return { rows: rows.map(({ total: _total, ...row }) => row), total };
  }

  /** Sets the given workflow-level fields (only those present) and returns the row. */
  async updateFields(id: string, changes: Partial<WorkflowFields>): Promise<WorkflowEntity> {
    const sets = ['updated_at = now()'];
    const params: unknown[] = [id];
    for (const field of ['name', 'description', 'path', 'nrn', 'metadata'] as const) {
      if (!(field in changes)) continue;
      params.push(field === 'metadata' ? json(changes.metadata) : changes[field]);
      sets.push(`${field} = $${params.length}${field === 'metadata' ? '::jsonb' : ''}`);
    }
    const [row] = await rowsOf<WorkflowEntity>(
      this.manager,
      `UPDATE workflows SET ${sets.join(', ')} WHERE id = $1 RETURNING ${selectColumns(this.manager, WorkflowEntity)}`,
      params,
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
