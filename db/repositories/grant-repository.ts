/** Grants of roles to users on NRNs. */
import { Repository, type EntityManager } from 'typeorm';
import { GrantEntity } from '../entities/grant';
import type { RoleEntity } from '../entities/role';
import type { UserEntity, UserType } from '../entities/user';
import { poolQuery, rowsOf, selectColumns } from '../sql';
import { bound, sql, type Sql } from '../sql-builder';

/** An active grant of the caller with what its role permits. */
export type HeldGrantRow = Pick<GrantEntity, 'nrn'> & Pick<RoleEntity, 'permissions'> & { roleSlug: RoleEntity['slug'] };

export type NewGrant = Pick<GrantEntity, 'nrn' | 'roleId' | 'status'>;

/** A user of an organization: users are keyed by both. */
export type UserKey = Pick<UserEntity, 'organizationId' | 'id'>;

/**
 * The caller as the token names it. Ids stay decimal strings (PostgreSQL casts
 * them to bigint), so ids beyond 2^53 are never rounded.
 */
export interface CallerKey {
  id: string;
  organizationId: string;
  type: UserEntity['type'];
}

/**
 * A caller's active grants, with `asOf`: the same grants as PostgreSQL renders
 * them ({@link heldGrantsSql}). A write that must only happen under these very
 * grants compares `asOf` with the rendering at the instant of the write, in its
 * own statement (see WorkflowRepository.publishNew).
 */
export interface HeldGrants {
  rows: HeldGrantRow[];
  asOf: string;
}

/** The caller's grants, and the type of the user they are recorded with (which the token's type must match). */
export interface CallerGrants extends HeldGrants {
  userType: UserType;
}

/**
 * An SQL expression for the caller's active grants as one JSON text, ordered so
 * that equal grants render equal text, for the caller's ids (`user`,
 * `organization`) and the token's user type (`type`). Only grants the caller's
 * identity may hold count: the stored user must be of the token's type (else
 * nothing renders), and a grant of a role whose
 * `user_types` leaves out that type is not honoured (the bulk grant route
 * refuses to create one; this keeps a row written another way inert). Folded
 * into the statement that reads the grants, so the checks cost no round trip.
 */
export function heldGrantsSql(user: unknown, organization: unknown, type: unknown): Sql {
  return sql`(SELECT coalesce(json_agg(h ORDER BY h.nrn, h."roleSlug"), '[]')::text
             FROM (SELECT g.nrn, r.slug AS "roleSlug", r.permissions
                     FROM users u
                     JOIN grants g ON g.organization_id = u.organization_id AND g.user_id = u.id
                     JOIN roles r ON r.id = g.role_id
                    WHERE u.organization_id = ${organization} AND u.id = ${user} AND u.type = ${type}::text
                      AND g.status = 'active' AND u.type = ANY (r.user_types)) h)`;
}

/**
 * The select list of a caller's grants (`held`, as {@link heldGrantsSql} renders
 * them) and the type the caller's user is recorded with (`userType`, null for a
 * caller never seen): what {@link GrantRepository.activeOfCaller} reads, for a
 * statement that reads them beside the rows a request is about (one round trip
 * instead of two; api/executions/live.ts). Complete it with
 * {@link GrantRepository.callerGrantsOf}.
 */
export function callerGrantsColumns(userValue: unknown, organizationValue: unknown, type: unknown): Sql {
  const [user, organization] = [bound(userValue), bound(organizationValue)];
  return sql`${heldGrantsSql(user, organization, type)} AS held,
          (SELECT u.type FROM users u WHERE u.organization_id = ${organization} AND u.id = ${user}) AS "userType"`;
}

/** The columns {@link callerGrantsColumns} names, as read. */
export interface CallerGrantsRead {
  held: string;
  userType: UserType | null;
}

/** The grants of a {@link heldGrantsSql} rendering. */
export function heldGrantsOf(asOf: string): HeldGrants {
  return { rows: JSON.parse(asOf) as HeldGrantRow[], asOf };
}

export class GrantRepository extends Repository<GrantEntity> {
  static of(manager: EntityManager): GrantRepository {
    return new GrantRepository(GrantEntity, manager);
  }

  /**
   * The caller's active grants and the type its user is recorded with, the
   * caller recorded as a user at first sight (first sight wins: the identity
   * provider owns user ids, and the type seen first is the user's for good).
   * Every authorized request runs this, so the common case is one plain read;
   * only a caller never seen before pays a second statement, the insert (as a
   * data-modifying CTE on every read it cost PostgreSQL ~85 µs of CPU per
   * request instead of ~50 µs on this project's machine).
   */
  async activeOfCaller(caller: CallerKey): Promise<CallerGrants> {
    // Straight on the pool, as prepared statements.
    const [read] = await poolQuery<CallerGrantsRead>(
      this.manager,
      'grants-of-caller',
      sql`SELECT ${callerGrantsColumns(caller.id, caller.organizationId, caller.type)}`,
    );
    return this.callerGrantsOf(read, caller);
  }

  /** The caller's grants from a read of {@link callerGrantsColumns}, the caller recorded as a user if it was never seen. */
  async callerGrantsOf(read: CallerGrantsRead, caller: CallerKey): Promise<CallerGrants> {
    return { ...heldGrantsOf(read.held), userType: read.userType ?? (await this.recordCaller(caller)) };
  }

  /** Records a caller seen for the first time; answers the type its user holds (another request may have recorded it first). */
  private async recordCaller(caller: CallerKey): Promise<UserType> {
    const [inserted] = await poolQuery<{ type: UserType }>(
      this.manager,
      'record-caller',
      `INSERT INTO users (id, organization_id, type) VALUES ($1, $2, $3) ON CONFLICT (organization_id, id) DO NOTHING RETURNING type`,
      [caller.id, caller.organizationId, caller.type],
    );
    if (inserted) return inserted.type;
    const [recorded] = await poolQuery<{ type: UserType }>(
      this.manager,
      'type-of-caller',
      `SELECT type FROM users WHERE organization_id = $2 AND id = $1`,
      [caller.id, caller.organizationId],
    );
    return recorded?.type ?? caller.type;
  }

  async ofUser(user: UserKey): Promise<GrantEntity[]> {
    return this.find({ where: { organizationId: user.organizationId, userId: user.id }, order: { id: 'ASC' } });
  }

  /** The (nrn, role) pairs among `grants` that the user already holds, in one statement. */
  async existingPairs(
    user: UserKey,
    grants: Array<Pick<GrantEntity, 'nrn' | 'roleId'>>,
  ): Promise<Array<Pick<GrantEntity, 'nrn' | 'roleId'>>> {
    return rowsOf(
      this.manager,
      `SELECT g.nrn, g.role_id AS "roleId" FROM grants g
         JOIN unnest($2::text[], $3::int[]) AS w(nrn, role_id) ON w.nrn = g.nrn AND w.role_id = g.role_id
        WHERE g.user_id = $1 AND g.organization_id = $4`,
      [user.id, grants.map((g) => g.nrn), grants.map((g) => g.roleId), user.organizationId],
    );
  }

  /**
   * Inserts every grant in one statement. Rows are sorted by key so concurrent
   * inserts of overlapping sets take the unique index's locks in the same order
   * (no deadlock); a row that meets an existing key is skipped, and the caller
   * compares what came back with what it asked for.
   */
  async insertMany(user: UserKey, grants: NewGrant[], grantedBy: string): Promise<GrantEntity[]> {
    const sorted = [...grants].sort((a, b) => (a.nrn === b.nrn ? a.roleId - b.roleId : a.nrn < b.nrn ? -1 : 1));
    return rowsOf<GrantEntity>(
      this.manager,
      `INSERT INTO grants (organization_id, user_id, nrn, role_id, status, granted_by)
       SELECT $6, $1, w.nrn, w.role_id, w.status, $5
         FROM unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS w(nrn, role_id, status, ord)
        ORDER BY w.ord
       ON CONFLICT ON CONSTRAINT grants_unique DO NOTHING
       RETURNING ${selectColumns(this.manager, GrantEntity)}`,
      [user.id, sorted.map((g) => g.nrn), sorted.map((g) => g.roleId), sorted.map((g) => g.status), grantedBy, user.organizationId],
    );
  }

  /** Active grants of a role (by slug) on NRNs, skipping those that exist; answers the ones created. */
  async grantRoleOnce(roleSlug: string, grants: Array<Pick<GrantEntity, 'organizationId' | 'userId' | 'nrn'>>): Promise<GrantEntity[]> {
    return rowsOf<GrantEntity>(
      this.manager,
      `INSERT INTO grants (organization_id, user_id, nrn, role_id, status)
       SELECT w.organization_id, w.user_id, w.nrn, (SELECT id FROM roles WHERE slug = $1), 'active'
         FROM unnest($4::bigint[], $2::bigint[], $3::text[]) AS w(organization_id, user_id, nrn)
       ON CONFLICT ON CONSTRAINT grants_unique DO NOTHING
       RETURNING ${selectColumns(this.manager, GrantEntity)}`,
      [roleSlug, grants.map((g) => g.userId), grants.map((g) => g.nrn), grants.map((g) => g.organizationId)],
    );
  }
}
