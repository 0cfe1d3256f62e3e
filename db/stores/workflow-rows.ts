import type { DataSource, EntityManager } from 'typeorm';

/** Row shapes of the workflow tables as the stores return them (camelCase, Dates). */
export interface WorkflowRow {
  id: string;
  organizationId: string;
  key: string | null;
  name: string;
  description: string | null;
  path: string;
  nrn: string | null;
  metadata: Record<string, unknown> | null;
  latestRevision: number;
  createdAt: Date;
  updatedAt: Date;
}

export interface RevisionRow {
  workflowId: string;
  revision: number;
  definition: Record<string, unknown> | null;
  contentHash: string;
  createdBy: string | null;
  releaseNotes: string | null;
  semanticVersion: string | null;
  engineVersion: string;
  createdAt: Date;
}

export interface AliasRow {
  workflowId: string;
  name: string;
  revision: number;
  active: boolean;
  metadata: Record<string, unknown> | null;
  updatedBy: string | null;
  updatedAt: Date;
}

export interface BindingRow {
  workflowId: string;
  aliasName: string;
  triggerId: string;
  organizationId: string;
  pluginType: string;
  revision: number;
  status: 'pending' | 'live' | 'failed' | 'inactive';
  webhookToken: string | null;
  scheduleId: string | null;
  activatedAt: Date | null;
  deactivatedAt: Date | null;
  lastError: { message: string; code: string } | null;
  runtimeMetadata: Record<string, unknown> | null;
}

export const WORKFLOW_COLUMNS = `id, organization_id AS "organizationId", key, name, description, path, nrn, metadata,
  latest_revision AS "latestRevision", created_at AS "createdAt", updated_at AS "updatedAt"`;
export const REVISION_COLUMNS = `workflow_id AS "workflowId", revision, content_hash AS "contentHash", created_by AS "createdBy",
  release_notes AS "releaseNotes", semantic_version AS "semanticVersion", engine_version AS "engineVersion", created_at AS "createdAt"`;
export const ALIAS_COLUMNS = `workflow_id AS "workflowId", name, revision, active, metadata, updated_by AS "updatedBy", updated_at AS "updatedAt"`;
export const BINDING_COLUMNS = `workflow_id AS "workflowId", alias_name AS "aliasName", trigger_id AS "triggerId", organization_id AS "organizationId",
  plugin_type AS "pluginType", revision, status, webhook_token AS "webhookToken", schedule_id AS "scheduleId", activated_at AS "activatedAt",
  deactivated_at AS "deactivatedAt", last_error AS "lastError", runtime_metadata AS "runtimeMetadata"`;

/**
 * `query` that always yields the row array: TypeORM answers UPDATE and DELETE
 * with `[rows, rowCount]` but everything else with the rows alone.
 */
export async function q(
  db: { query(sql: string, params?: unknown[]): Promise<unknown> },
  sql: string,
  params: unknown[] = [],
): Promise<unknown> {
  const result = await db.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0];
  return result;
}

interface PgPoolLike {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * One self-contained statement straight on the driver's pg pool, skipping
 * TypeORM's query-runner bookkeeping (measurable on the publish hot path).
 * Only for single statements outside a transaction; anything else uses `q`.
 */
export async function poolQuery(db: DataSource | EntityManager, sql: string, params: unknown[], name?: string): Promise<unknown> {
  const pool = 'driver' in db ? (db.driver as unknown as { master?: PgPoolLike }).master : undefined;
  if (!pool || typeof pool.query !== 'function' || !('isInitialized' in db)) return q(db, sql, params);
  // A named statement is parsed once per connection; later calls send only Bind/Execute.
  return (await pool.query({ name, text: sql, values: params })).rows;
}
