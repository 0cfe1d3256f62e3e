/**
 * Users, roles and grants. Every function takes an EntityManager so callers
 * can run it inside their transaction.
 */
import type { EntityManager } from 'typeorm';

export type UserType = 'person' | 'service_account';

export interface RoleRecord {
  id: number;
  slug: string;
  name: string;
  description: string;
  permissions: string[];
  user_types: UserType[];
  assignable_by: string[];
  requires_approval: boolean;
}

export interface CallerGrantRecord {
  nrn: string;
  role_slug: string;
  permissions: string[];
}

export interface UserRecord {
  id: number;
  organization_id: number;
  type: UserType;
  email: string | null;
  name: string | null;
  created_at: Date;
}

export interface GrantRecord {
  id: number;
  nrn: string;
  user_id: number;
  role_id: number;
  role_slug: string;
  status: 'active' | 'pending';
  created_at: Date;
}

const ROLE_COLUMNS = 'id, slug, name, description, permissions, user_types, assignable_by, requires_approval';
const USER_COLUMNS = 'id::float8 AS id, organization_id::float8 AS organization_id, type, email, name, created_at';

/**
 * Records the caller as a user (first sight wins: the identity provider owns
 * user ids) and returns the caller's active grants, in one round trip.
 */
export async function callerGrants(
  manager: EntityManager,
  caller: { userId: number; organizationId: number; userType: UserType },
): Promise<CallerGrantRecord[]> {
  return manager.query(
    `WITH seen AS (
       INSERT INTO users (id, organization_id, type) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING
     )
     SELECT g.nrn, r.slug AS role_slug, r.permissions
       FROM grants g JOIN roles r ON r.id = g.role_id
      WHERE g.user_id = $1 AND g.status = 'active'`,
    [caller.userId, caller.organizationId, caller.userType],
  );
}

export async function listRoles(manager: EntityManager): Promise<RoleRecord[]> {
  return manager.query(`SELECT ${ROLE_COLUMNS} FROM roles ORDER BY id`);
}

export async function findRoles(manager: EntityManager, ids: number[], slugs: string[]): Promise<RoleRecord[]> {
  return manager.query(`SELECT ${ROLE_COLUMNS} FROM roles WHERE id = ANY($1::int[]) OR slug = ANY($2::text[])`, [ids, slugs]);
}

export async function findUser(manager: EntityManager, id: number): Promise<UserRecord | undefined> {
  const rows: UserRecord[] = await manager.query(`SELECT ${USER_COLUMNS} FROM users WHERE id = $1`, [id]);
  return rows[0];
}

export async function createUser(
  manager: EntityManager,
  user: { id?: number; organizationId: number; type: UserType; email?: string; name?: string },
): Promise<UserRecord | undefined> {
  const rows: UserRecord[] = await manager.query(
    `INSERT INTO users (id, organization_id, type, email, name)
     VALUES (COALESCE($1::bigint, nextval(pg_get_serial_sequence('users', 'id'))), $2, $3, $4, $5)
     ON CONFLICT (id) DO NOTHING
     RETURNING ${USER_COLUMNS}`,
    [user.id ?? null, user.organizationId, user.type, user.email ?? null, user.name ?? null],
  );
  return rows[0];
}

export async function listUsers(
  manager: EntityManager,
  organizationId: number,
  offset: number,
  limit: number,
): Promise<{ total: number; rows: UserRecord[] }> {
  const [rows, count] = await Promise.all([
    manager.query<UserRecord[]>(`SELECT ${USER_COLUMNS} FROM users WHERE organization_id = $1 ORDER BY id OFFSET $2 LIMIT $3`, [
      organizationId,
      offset,
      limit,
    ]),
    manager.query<Array<{ total: number }>>(`SELECT count(*)::int AS total FROM users WHERE organization_id = $1`, [organizationId]),
  ]);
  return { total: count[0].total, rows };
}

const GRANT_COLUMNS = `g.id::float8 AS id, g.nrn, g.user_id::float8 AS user_id, g.role_id, r.slug AS role_slug, g.status, g.created_at`;

export async function listGrants(manager: EntityManager, userId: number): Promise<GrantRecord[]> {
  return manager.query(`SELECT ${GRANT_COLUMNS} FROM grants g JOIN roles r ON r.id = g.role_id WHERE g.user_id = $1 ORDER BY g.id`, [
    userId,
  ]);
}

export async function findGrant(manager: EntityManager, userId: number, grantId: number): Promise<GrantRecord | undefined> {
  const rows: GrantRecord[] = await manager.query(
    `SELECT ${GRANT_COLUMNS} FROM grants g JOIN roles r ON r.id = g.role_id WHERE g.user_id = $1 AND g.id = $2`,
    [userId, grantId],
  );
  return rows[0];
}

export async function deleteGrant(manager: EntityManager, grantId: number): Promise<void> {
  await manager.query(`DELETE FROM grants WHERE id = $1`, [grantId]);
}

export async function approveGrant(manager: EntityManager, grantId: number): Promise<void> {
  await manager.query(`UPDATE grants SET status = 'active' WHERE id = $1`, [grantId]);
}

export interface NewGrant {
  nrn: string;
  roleId: number;
  status: 'active' | 'pending';
}

/** Existing (nrn, role) pairs of a user among the given ones. */
export async function existingGrantKeys(manager: EntityManager, userId: number, grants: NewGrant[]): Promise<Set<string>> {
  const rows: Array<{ nrn: string; role_id: number }> = await manager.query(
    `SELECT g.nrn, g.role_id FROM grants g
       JOIN unnest($2::text[], $3::int[]) AS w(nrn, role_id) ON w.nrn = g.nrn AND w.role_id = g.role_id
      WHERE g.user_id = $1`,
    [userId, grants.map((g) => g.nrn), grants.map((g) => g.roleId)],
  );
  return new Set(rows.map((row) => grantKey(row.nrn, row.role_id)));
}

export const grantKey = (nrn: string, roleId: number): string => `${roleId}\u0000${nrn}`;

/**
 * Inserts every grant in one statement. Rows are sorted by key so concurrent
 * inserts of overlapping sets take the unique index's locks in the same order
 * (no deadlock); a row that meets an existing key is skipped, and the caller
 * compares what came back with what it asked for.
 */
export async function insertGrants(manager: EntityManager, userId: number, grants: NewGrant[], grantedBy: number): Promise<GrantRecord[]> {
  const sorted = [...grants].sort((a, b) => (a.nrn === b.nrn ? a.roleId - b.roleId : a.nrn < b.nrn ? -1 : 1));
  return manager.query(
    `WITH inserted AS (
       INSERT INTO grants (user_id, nrn, role_id, status, granted_by)
       SELECT $1, w.nrn, w.role_id, w.status, $5
         FROM unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS w(nrn, role_id, status, ord)
        ORDER BY w.ord
       ON CONFLICT ON CONSTRAINT grants_unique DO NOTHING
       RETURNING *
     )
     SELECT ${GRANT_COLUMNS} FROM inserted g JOIN roles r ON r.id = g.role_id`,
    [userId, sorted.map((g) => g.nrn), sorted.map((g) => g.roleId), sorted.map((g) => g.status), grantedBy],
  );
}
