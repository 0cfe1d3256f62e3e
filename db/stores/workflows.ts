/**
 * Workflows and their revisions. Publishing writes the workflow, revision 1
 * and the `latest` alias in one statement (data-modifying CTEs are atomic and
 * cost one round trip). A new revision locks the workflow row, so concurrent
 * publishes of one workflow get contiguous numbers.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { poolQuery, q, REVISION_COLUMNS, WORKFLOW_COLUMNS, type AliasRow, type RevisionRow, type WorkflowRow } from './workflow-rows';

export interface WorkflowFields {
  name: string;
  description: string | null;
  path: string;
  nrn: string | null;
  metadata: Record<string, unknown> | null;
}

export interface NewRevision {
  definition: Record<string, unknown>;
  /** `definition` serialized (done once by the caller). */
  definitionJson: string;
  /** Digest of `definitionJson`, for audit; content equality is decided with jsonb in SQL. */
  contentHash: string;
  createdBy: string;
  releaseNotes: string | null;
  semanticVersion: string | null;
  engineVersion: string;
}

export interface Published {
  workflow: WorkflowRow;
  revision: RevisionRow;
  latestAlias: AliasRow;
}

type Db = DataSource | EntityManager;

/**
 * Creates a workflow at revision 1 with `latest`. With `skipOnKeyConflict`, an
 * existing key makes it return undefined instead of raising the unique violation.
 */
export async function insertWorkflow(
  db: Db,
  ids: { id: string; organizationId: string; key: string | null },
  fields: WorkflowFields,
  revision: NewRevision,
  skipOnKeyConflict = false,
): Promise<Published | undefined> {
  const conflict = skipOnKeyConflict ? 'ON CONFLICT (organization_id, key) WHERE key IS NOT NULL DO NOTHING' : '';
  const rows = (await poolQuery(
    db,
    `WITH w AS (
       INSERT INTO workflows (id, organization_id, key, name, description, path, nrn, metadata, latest_revision)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, 1) ${conflict}
       RETURNING created_at, updated_at
     ), r AS (
       INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, release_notes, semantic_version, engine_version)
       SELECT $1, 1, $9::jsonb, $10, $11, $12, $13, $14 FROM w
       RETURNING created_at
     ), a AS (
       INSERT INTO workflow_aliases (workflow_id, name, revision, active, updated_by)
       SELECT $1, 'latest', 1, false, $11 FROM w
       RETURNING updated_at
     )
     SELECT w.created_at AS "createdAt", r.created_at AS "revisionCreatedAt", a.updated_at AS "aliasUpdatedAt" FROM w, r, a`,
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
    ],
    skipOnKeyConflict ? 'publish-workflow-upsert' : 'publish-workflow',
  )) as Array<{ createdAt: Date; revisionCreatedAt: Date; aliasUpdatedAt: Date }>;
  if (rows.length === 0) return undefined;
  const [row] = rows;
  return {
    workflow: { ...ids, ...fields, latestRevision: 1, createdAt: row.createdAt, updatedAt: row.createdAt },
    revision: { workflowId: ids.id, revision: 1, ...revisionFields(revision), createdAt: row.revisionCreatedAt },
    latestAlias: {
      workflowId: ids.id,
      name: 'latest',
      revision: 1,
      active: false,
      metadata: null,
      updatedBy: revision.createdBy,
      updatedAt: row.aliasUpdatedAt,
    },
  };
}

export type UpsertOutcome = Published & { mode: 'overwritten' | 'new-revision' };

/**
 * Publishes onto an existing keyed workflow: a new revision when the content
 * differs from the newest one, else only the workflow-level fields change.
 * Undefined when no workflow has that key.
 */
export async function publishOnExisting(
  dataSource: DataSource,
  organizationId: string,
  key: string,
  fields: WorkflowFields,
  revision: NewRevision,
  /** Top-level keys that are not content (changing only them overwrites). */
  workflowLevelKeys: string[],
): Promise<UpsertOutcome | undefined> {
  return dataSource.transaction(async (m) => {
    const [current] = (await q(m, `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE organization_id = $1 AND key = $2 FOR UPDATE`, [
      organizationId,
      key,
    ])) as WorkflowRow[];
    if (!current) return undefined;
    // jsonb equality ignores key order, so a reformatted file with the same content is recognised.
    const [newest] = (await q(
      m,
      `SELECT ${REVISION_COLUMNS}, definition, (definition - $3::text[]) = ($4::jsonb - $3::text[]) AS same
       FROM workflow_revisions WHERE workflow_id = $1 AND revision = $2`,
      [current.id, current.latestRevision, workflowLevelKeys, revision.definitionJson],
    )) as Array<RevisionRow & { same: boolean }>;
    const set = `name = $2, description = $3, path = $4, nrn = $5, metadata = $6::jsonb, updated_at = now()`;
    const fieldParams = [fields.name, fields.description, fields.path, fields.nrn, json(fields.metadata)];
    if (newest.same) {
      delete (newest as Partial<typeof newest>).same;
      const [workflow] = (await q(m, `UPDATE workflows SET ${set} WHERE id = $1 RETURNING ${WORKFLOW_COLUMNS}`, [
        current.id,
        ...fieldParams,
      ])) as WorkflowRow[];
      const [latestAlias] = (await q(m, `SELECT ${ALIAS_SELECT} FROM workflow_aliases WHERE workflow_id = $1 AND name = 'latest'`, [
        current.id,
      ])) as AliasRow[];
      return { mode: 'overwritten' as const, workflow, revision: newest, latestAlias };
    }
    const next = current.latestRevision + 1;
    const [row] = (await q(
      m,
      `WITH r AS (
         INSERT INTO workflow_revisions (workflow_id, revision, definition, content_hash, created_by, release_notes, semantic_version, engine_version)
         VALUES ($1, $7, $8::jsonb, $9, $10, $11, $12, $13) RETURNING created_at
       ), a AS (
         UPDATE workflow_aliases SET revision = $7, updated_at = now(), updated_by = $10 WHERE workflow_id = $1 AND name = 'latest'
         RETURNING ${ALIAS_SELECT}
       ), w AS (
         UPDATE workflows SET ${set}, latest_revision = $7 WHERE id = $1 RETURNING ${WORKFLOW_COLUMNS}
       )
       SELECT row_to_json(w) AS workflow, row_to_json(a) AS alias, r.created_at AS "revisionCreatedAt" FROM w, a, r`,
      [
        current.id,
        ...fieldParams,
        next,
        revision.definitionJson,
        revision.contentHash,
        revision.createdBy,
        revision.releaseNotes,
        revision.semanticVersion,
        revision.engineVersion,
      ],
    )) as Array<{ workflow: WorkflowRow; alias: AliasRow; revisionCreatedAt: Date }>;
    return {
      mode: 'new-revision' as const,
      workflow: revive(row.workflow, ['createdAt', 'updatedAt']),
      latestAlias: revive(row.alias, ['updatedAt']),
      revision: { workflowId: current.id, revision: next, ...revisionFields(revision), createdAt: row.revisionCreatedAt },
    };
  });
}

const ALIAS_SELECT = `workflow_id AS "workflowId", name, revision, active, metadata, updated_by AS "updatedBy", updated_at AS "updatedAt"`;

/** By server id or client key, within one organization only. */
export async function findWorkflow(db: Db, organizationId: string, ref: string): Promise<WorkflowRow | undefined> {
  const rows = (await q(db, `SELECT ${WORKFLOW_COLUMNS} FROM workflows WHERE organization_id = $1 AND (id = $2 OR key = $2)`, [
    organizationId,
    ref,
  ])) as WorkflowRow[];
  return rows[0];
}

export interface ListFilter {
  path?: string;
  text?: string;
  page: number;
  limit: number;
}

export async function listWorkflows(db: Db, organizationId: string, filter: ListFilter): Promise<{ rows: WorkflowRow[]; total: number }> {
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
  const rows = (await q(
    db,
    `SELECT ${WORKFLOW_COLUMNS}, count(*) OVER () AS total FROM workflows WHERE ${where.join(' AND ')}
     ORDER BY created_at DESC, id LIMIT $${params.length - 1} OFFSET $${params.length}`,
    params,
  )) as Array<WorkflowRow & { total: string }>;
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  if (rows.length === 0 && filter.page > 1) {
    const [count] = (await q(db, `SELECT count(*) AS total FROM workflows WHERE ${where.join(' AND ')}`, params.slice(0, -2))) as Array<{
      total: string;
    }>;
    total = Number(count.total);
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

export async function updateWorkflow(db: Db, id: string, changes: Partial<Omit<WorkflowFields, 'nrn'>>): Promise<WorkflowRow> {
  const sets = ['updated_at = now()'];
  const params: unknown[] = [id];
  for (const [field, column] of [
    ['name', 'name'],
    ['description', 'description'],
    ['path', 'path'],
    ['metadata', 'metadata'],
  ] as const) {
    if (!(field in changes)) continue;
    params.push(field === 'metadata' ? json(changes.metadata ?? null) : changes[field]);
    sets.push(`${column} = $${params.length}${field === 'metadata' ? '::jsonb' : ''}`);
  }
  const [row] = (await q(
    db,
    `UPDATE workflows SET ${sets.join(', ')} WHERE id = $1 RETURNING ${WORKFLOW_COLUMNS}`,
    params,
  )) as WorkflowRow[];
  return row;
}

/** 'deleted', 'not-found', or 'active' when an alias is still active (nothing is deleted then). */
export async function deleteWorkflow(
  dataSource: DataSource,
  organizationId: string,
  ref: string,
): Promise<'deleted' | 'not-found' | 'active'> {
  return dataSource.transaction(async (m) => {
    // The row lock serializes with activation, which locks the same row.
    const [target] = (await q(m, `SELECT id FROM workflows WHERE organization_id = $1 AND (id = $2 OR key = $2) FOR UPDATE`, [
      organizationId,
      ref,
    ])) as Array<{ id: string }>;
    if (!target) return 'not-found';
    const active = (await q(m, `SELECT 1 FROM workflow_aliases WHERE workflow_id = $1 AND active LIMIT 1`, [target.id])) as unknown[];
    if (active.length > 0) return 'active';
    await q(m, `DELETE FROM workflows WHERE id = $1`, [target.id]);
    return 'deleted';
  });
}

export async function listRevisions(
  db: Db,
  workflowId: string,
  options: { includeDefinition: boolean; page: number; limit: number },
): Promise<{ rows: RevisionRow[]; total: number }> {
  const rows = (await q(
    db,
    `SELECT ${REVISION_COLUMNS}, ${options.includeDefinition ? 'definition' : 'NULL::jsonb AS definition'}, count(*) OVER () AS total
     FROM workflow_revisions WHERE workflow_id = $1 ORDER BY revision DESC LIMIT $2 OFFSET $3`,
    [workflowId, options.limit, (options.page - 1) * options.limit],
  )) as Array<RevisionRow & { total: string }>;
  let total = rows.length > 0 ? Number(rows[0].total) : 0;
  if (rows.length === 0 && options.page > 1) {
    const [count] = (await q(db, `SELECT count(*) AS total FROM workflow_revisions WHERE workflow_id = $1`, [workflowId])) as Array<{
      total: string;
    }>;
    total = Number(count.total);
  }
  return { rows: rows.map(({ total: _total, ...row }) => row), total };
}

export async function findRevision(db: Db, workflowId: string, revision: number): Promise<RevisionRow | undefined> {
  const rows = (await q(db, `SELECT ${REVISION_COLUMNS}, definition FROM workflow_revisions WHERE workflow_id = $1 AND revision = $2`, [
    workflowId,
    revision,
  ])) as RevisionRow[];
  return rows[0];
}

function json(value: Record<string, unknown> | null | undefined): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** row_to_json turns timestamps into strings; bring back Dates. */
function revive<T>(row: T, fields: Array<keyof T>): T {
  const out = { ...row };
  for (const field of fields) out[field] = new Date(out[field] as unknown as string) as T[keyof T];
  return out;
}

function revisionFields({ definitionJson: _json, ...rest }: NewRevision): Omit<NewRevision, 'definitionJson'> {
  return rest;
}
