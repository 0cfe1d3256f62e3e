/** Accounts and their entries in the metadata catalog. */
import type { EntityManager } from 'typeorm';

export interface AccountMetadata {
  key: string;
  value: string;
  schemas: Array<Record<string, unknown>>;
  tags: Array<{ key: string; value: string }>;
}

export interface AccountRecord {
  id: number;
  organization_id: number;
  name: string;
  slug: string;
  status: 'active' | 'inactive' | 'deleted';
  deleted_at: Date | null;
  metadata: AccountMetadata | null;
}

const COLUMNS = `a.id::float8 AS id, a.organization_id::float8 AS organization_id, a.name, a.slug, a.status, a.deleted_at`;
const WITH_METADATA = `${COLUMNS},
  CASE WHEN m.key IS NULL THEN NULL ELSE jsonb_build_object('key', m.key, 'value', m.value, 'schemas', m.schemas, 'tags', m.tags) END AS metadata`;
const METADATA_JOIN = `LEFT JOIN metadata_catalog m ON m.entity = 'account' AND m.entity_id = a.id::text`;

export async function insertAccount(
  manager: EntityManager,
  account: { organizationId: number; name: string; slug: string; status: 'active' | 'inactive' },
): Promise<number> {
  const rows: Array<{ id: number }> = await manager.query(
    `INSERT INTO accounts (organization_id, name, slug, status) VALUES ($1, $2, $3, $4) RETURNING id::float8 AS id`,
    [account.organizationId, account.name, account.slug, account.status],
  );
  return rows[0].id;
}

export async function upsertAccountMetadata(manager: EntityManager, accountId: number, metadata: AccountMetadata): Promise<void> {
  await manager.query(
    `INSERT INTO metadata_catalog (entity, entity_id, key, value, schemas, tags) VALUES ('account', $1, $2, $3, $4, $5)
     ON CONFLICT (entity, entity_id) DO UPDATE SET key = EXCLUDED.key, value = EXCLUDED.value, schemas = EXCLUDED.schemas, tags = EXCLUDED.tags, updated_at = now()`,
    [String(accountId), metadata.key, metadata.value, JSON.stringify(metadata.schemas), JSON.stringify(metadata.tags)],
  );
}

/** Live slugs of an organization that start with `base` (to pick a free generated slug). */
export async function slugsLike(manager: EntityManager, organizationId: number, base: string): Promise<Set<string>> {
  const rows: Array<{ slug: string }> = await manager.query(
    `SELECT slug FROM accounts WHERE organization_id = $1 AND deleted_at IS NULL AND left(slug, $3) = $2`,
    [organizationId, base, base.length],
  );
  return new Set(rows.map((r) => r.slug));
}

export async function findAccount(manager: EntityManager, id: number): Promise<AccountRecord | undefined> {
  const rows: AccountRecord[] = await manager.query(`SELECT ${WITH_METADATA} FROM accounts a ${METADATA_JOIN} WHERE a.id = $1`, [id]);
  return rows[0];
}

/**
 * One page of live accounts and their total, in one round trip. Page ids come
 * from an index-only scan of the partial listing index; pages past the middle
 * are read from the far end (descending), so the last page is as cheap as the
 * first. The total is the trigger-maintained count, read in the same snapshot.
 */
export async function listAccounts(
  manager: EntityManager,
  organizationId: number,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: AccountRecord[] }> {
  const [result]: Array<{ total: number; rows: AccountRecord[] }> = await manager.query(
    `WITH total AS (
       SELECT COALESCE((SELECT live FROM account_counts WHERE organization_id = $1), 0) AS n
     ),
     head AS (
       SELECT id FROM accounts WHERE organization_id = $1 AND deleted_at IS NULL AND $2 <= (SELECT n FROM total) / 2
        ORDER BY id OFFSET $2 LIMIT $3
     ),
     tail AS (
       SELECT id FROM accounts WHERE organization_id = $1 AND deleted_at IS NULL AND $2 > (SELECT n FROM total) / 2
        ORDER BY id DESC
        OFFSET GREATEST((SELECT n FROM total) - $2 - $3, 0)
        LIMIT LEAST($3, GREATEST((SELECT n FROM total) - $2, 0))
     ),
     ids AS (SELECT id FROM head UNION ALL SELECT id FROM tail)
     SELECT (SELECT n FROM total)::float8 AS total,
            COALESCE((SELECT json_agg(p ORDER BY p.id) FROM (
              -- An id array, not a join: the planner cannot tell the page holds only a few ids.
              SELECT ${COLUMNS} FROM accounts a WHERE a.id = ANY (ARRAY(SELECT id FROM ids))
            ) p), '[]'::json) AS rows`,
    [organizationId, offset, limit],
  );
  return result;
}

/** A page of the live accounts among `ids` (callers granted on single accounts). */
export async function listAccountsAmong(
  manager: EntityManager,
  organizationId: number,
  ids: number[],
  offset: number,
  limit: number,
): Promise<{ total: number; rows: AccountRecord[] }> {
  const [result]: Array<{ total: number; rows: AccountRecord[] }> = await manager.query(
    `WITH live AS (SELECT ${COLUMNS} FROM accounts a WHERE a.organization_id = $1 AND a.deleted_at IS NULL AND a.id = ANY ($2::bigint[]))
     SELECT (SELECT count(*) FROM live)::float8 AS total,
            COALESCE((SELECT json_agg(p ORDER BY p.id) FROM (SELECT * FROM live ORDER BY id OFFSET $3 LIMIT $4) p), '[]'::json) AS rows`,
    [organizationId, ids, offset, limit],
  );
  return result;
}

export async function updateAccount(
  manager: EntityManager,
  id: number,
  changes: { name?: string; slug?: string; status?: 'active' | 'inactive' },
): Promise<void> {
  await manager.query(
    `UPDATE accounts SET name = COALESCE($2, name), slug = COALESCE($3, slug), status = COALESCE($4, status), updated_at = now()
      WHERE id = $1 AND deleted_at IS NULL`,
    [id, changes.name ?? null, changes.slug ?? null, changes.status ?? null],
  );
}

/** Soft delete: the row stays, with status `deleted` and `deleted_at`; its slug becomes free. */
export async function softDeleteAccount(manager: EntityManager, id: number): Promise<boolean> {
  // TypeORM answers UPDATE with [rows, affected count].
  const [rows]: [unknown[], number] = await manager.query(
    `UPDATE accounts SET status = 'deleted', deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id`,
    [id],
  );
  return rows.length > 0;
}
