/**
 * Config entries. Upsert is one statement keyed by the unique index over the
 * place, so concurrent writers of one name leave one row; the secret flag is
 * checked in the same statement (a flag change updates nothing). Reads never
 * select the ciphertext.
 */
import type { DataSource, EntityManager } from 'typeorm';
import { q } from './workflow-rows';

export interface ConfigEntryRow {
  id: string;
  organizationId: string;
  name: string;
  secret: boolean;
  path: string | null;
  workflowId: string | null;
  value: string | null;
  version: number;
  createdBy: string | null;
  createdAt: Date;
  updatedAt: Date;
}

type Db = DataSource | EntityManager;

const COLUMNS = `id, organization_id AS "organizationId", name, secret, path, workflow_id AS "workflowId",
  CASE WHEN secret THEN NULL ELSE value END AS value, version, created_by AS "createdBy", created_at AS "createdAt", updated_at AS "updatedAt"`;

export interface ConfigWrite {
  id: string;
  organizationId: string;
  name: string;
  secret: boolean;
  path: string | null;
  workflowId: string | null;
  /** Plain value (variables) or ciphertext (secrets). */
  value: string | null;
  encryptedValue: Buffer | null;
  createdBy: string;
}

export async function upsertConfigEntry(
  db: Db,
  entry: ConfigWrite,
): Promise<{ row: ConfigEntryRow; created: boolean } | 'secret-flag-differs'> {
  const rows = (await q(
    db,
    `INSERT INTO config_entries AS c (id, organization_id, name, secret, path, workflow_id, value, encrypted_value, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (organization_id, name, (COALESCE(path, '')), (COALESCE(workflow_id, '')))
     DO UPDATE SET value = EXCLUDED.value, encrypted_value = EXCLUDED.encrypted_value, version = c.version + 1, updated_at = now()
     WHERE c.secret = EXCLUDED.secret
     RETURNING ${COLUMNS}, (xmax = 0) AS created`,
    [
      entry.id,
      entry.organizationId,
      entry.name,
      entry.secret,
      entry.path,
      entry.workflowId,
      entry.value,
      entry.encryptedValue,
      entry.createdBy,
    ],
  )) as Array<ConfigEntryRow & { created: boolean }>;
  if (rows.length === 0) return 'secret-flag-differs';
  const { created, ...row } = rows[0];
  return { row, created };
}

export async function findConfigEntry(db: Db, organizationId: string, id: string): Promise<ConfigEntryRow | undefined> {
  const rows = (await q(db, `SELECT ${COLUMNS} FROM config_entries WHERE organization_id = $1 AND id = $2`, [
    organizationId,
    id,
  ])) as ConfigEntryRow[];
  return rows[0];
}

export async function rotateConfigEntry(
  db: Db,
  organizationId: string,
  id: string,
  value: { value: string | null; encryptedValue: Buffer | null },
): Promise<ConfigEntryRow | undefined> {
  const rows = (await q(
    db,
    `UPDATE config_entries SET value = $3, encrypted_value = $4, version = version + 1, updated_at = now()
     WHERE organization_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [organizationId, id, value.value, value.encryptedValue],
  )) as ConfigEntryRow[];
  return rows[0];
}

export async function deleteConfigEntry(db: Db, organizationId: string, id: string): Promise<boolean> {
  const rows = (await q(db, `DELETE FROM config_entries WHERE organization_id = $1 AND id = $2 RETURNING id`, [
    organizationId,
    id,
  ])) as unknown[];
  return rows.length > 0;
}

/** `/a/b` → `['/a/b', '/a', '/']`: the folder and its ancestors, deepest first. */
export function folderChain(path: string): string[] {
  const segments = path.split('/').filter((s) => s !== '');
  const chain: string[] = [];
  for (let i = segments.length; i > 0; i -= 1) chain.push('/' + segments.slice(0, i).join('/'));
  chain.push('/');
  return chain;
}

/**
 * Entries at one place, or (with `chain`) at every place a workflow or folder
 * sees, ordered by precedence: workflow, deepest folder, ancestors, root.
 */
export async function listConfigEntries(
  db: Db,
  organizationId: string,
  place: { workflowId: string | null; paths: string[] },
): Promise<ConfigEntryRow[]> {
  return (await q(
    db,
    `SELECT ${COLUMNS} FROM config_entries
     WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[]))
     ORDER BY CASE WHEN workflow_id IS NOT NULL THEN -1 ELSE array_position($3::text[], path) END, name, secret`,
    [organizationId, place.workflowId, place.paths],
  )) as ConfigEntryRow[];
}

/** Which of the given names have an entry (of the given kind) somewhere the workflow sees. */
export async function visibleConfigNames(
  db: Db,
  organizationId: string,
  place: { workflowId: string | null; paths: string[] },
  names: string[],
): Promise<Array<{ name: string; secret: boolean }>> {
  if (names.length === 0) return [];
  return (await q(
    db,
    `SELECT DISTINCT name, secret FROM config_entries
     WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[])`,
    [organizationId, place.workflowId, place.paths, names],
  )) as Array<{ name: string; secret: boolean }>;
}

export interface EffectiveEntry {
  id: string;
  name: string;
  version: number;
  value: string | null;
  encryptedValue: Buffer | null;
}

/**
 * The effective entry of each name for a workflow (first match of workflow,
 * deepest folder, ancestors, root), of one kind: `secrets.*` and `vars.*` are
 * disjoint namespaces. Used by activities; this is the one read that selects
 * ciphertext.
 */
export async function effectiveConfigEntries(
  db: Db,
  organizationId: string,
  place: { workflowId: string | null; paths: string[] },
  names: string[],
  secret: boolean,
): Promise<EffectiveEntry[]> {
  if (names.length === 0) return [];
  return (await q(
    db,
    `SELECT DISTINCT ON (name) id, name, version, value, encrypted_value AS "encryptedValue" FROM config_entries
     WHERE organization_id = $1 AND (workflow_id = $2 OR path = ANY($3::text[])) AND name = ANY($4::text[]) AND secret = $5
     ORDER BY name, CASE WHEN workflow_id IS NOT NULL THEN -1 ELSE array_position($3::text[], path) END`,
    [organizationId, place.workflowId, place.paths, names, secret],
  )) as EffectiveEntry[];
}
