/**
 * `POST /user/{id}/grant`: 1 to 100 grants, all or nothing. Every item is
 * checked before anything is written; the first failing item (lowest index)
 * is named in the 400 (`cause`), and every failing item in `causes` (so a
 * client can mark each one at once). The insert itself runs in one transaction, with the
 * unique index as the last word on duplicates, so concurrent requests with
 * overlapping items can never leave two copies of a grant.
 */
import type { DataSource } from 'typeorm';
import { HttpError } from '../http/errors';
import { compileValidator } from '../http/validation';
import type { GrantEntity } from '../../db/entities/grant';
import type { RoleEntity } from '../../db/entities/role';
import type { UserEntity } from '../../db/entities/user';
import { GrantRepository, type NewGrant } from '../../db/repositories/grant-repository';
import { RoleRepository } from '../../db/repositories/role-repository';
import type { Access } from '../access/access';
import type { AuditTrail } from '../audit/trail';
import { canonicalNrn, parseNrn } from '../access/nrn';
import { GrantItem } from './schemas/grants';
import { bulkGrantsFailed } from './errors';

export const GRANT_CAUSES = {
  invalid: 'RESOURCE_GRANTS.INVALID_GRANT',
  duplicate: 'RESOURCE_GRANTS.DUPLICATE_GRANT',
  roleNotFound: 'RESOURCE_GRANTS.ROLE_NOT_FOUND',
  userType: 'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED',
  notAssignable: 'RESOURCE_GRANTS.ROLE_NOT_ASSIGNABLE',
  outsideOrganization: 'RESOURCE_GRANTS.NRN_OUTSIDE_ORGANIZATION',
} as const;

const validateItem = compileValidator(GrantItem);

/** Why one item cannot be granted. */
class GrantFailure {
  constructor(
    readonly code: string,
    readonly detail: string,
    readonly index: number,
  ) {}
}

/** Every failing item of one request (at least one). */
class GrantFailures extends Error {
  constructor(readonly failures: GrantFailure[]) {
    super(failures[0].detail);
  }
}

const causeOf = (f: GrantFailure) => ({ code: f.code, detail: f.detail, index: f.index });

function bulkFailed(failures: GrantFailure[]): HttpError {
  return bulkGrantsFailed([...failures].sort((a, b) => a.index - b.index).map(causeOf));
}

const grantKey = (nrn: string, roleId: number): string => `${roleId}\u0000${nrn}`;

interface Resolved extends NewGrant {
  index: number;
  role: RoleEntity;
}

/** A created grant with its role (the contract names the role's slug). */
export interface CreatedGrant {
  grant: GrantEntity;
  role: RoleEntity;
}

/** The audit details of a grant: who holds which role, never more. */
export const grantDetails = (grant: Pick<GrantEntity, 'userId' | 'status'>, role: Pick<RoleEntity, 'slug'>) => ({
  userId: String(grant.userId),
  role: role.slug,
  status: grant.status,
});

/** Creates the grants; each is recorded in the audit trail (`audit`) in the transaction that inserts them. */
export async function bulkGrant(
  dataSource: DataSource,
  access: Access,
  user: UserEntity,
  items: unknown[],
  audit: AuditTrail,
): Promise<CreatedGrant[]> {
  try {
    const resolved = await resolveItems(dataSource, access, user, items);
    return await insertAll(dataSource, access, user, resolved, audit);
  } catch (error) {
    if (error instanceof GrantFailures) throw bulkFailed(error.failures);
    throw error;
  }
}

async function resolveItems(dataSource: DataSource, access: Access, user: UserEntity, items: unknown[]): Promise<Resolved[]> {
  const failures: GrantFailure[] = [];
  const shaped = items.map((item, index) => {
    const errors = validateItem(item);
    if (errors.length > 0)
      failures.push(
        new GrantFailure(GRANT_CAUSES.invalid, `item ${index} must be {nrn, role_slug} or {nrn, role_id} with a valid NRN`, index),
      );
    return errors.length > 0 ? undefined : (item as { nrn: string; role_slug?: string; role_id?: number });
  });
  const present = shaped.filter((s) => s !== undefined);
  const roles = await RoleRepository.of(dataSource.manager).findByIdsOrSlugs(
    present.flatMap((s) => (s.role_id === undefined ? [] : [s.role_id])),
    present.flatMap((s) => (s.role_slug === undefined ? [] : [s.role_slug])),
  );

  const seen = new Map<string, number>();
  const resolved: Resolved[] = [];
  shaped.forEach((item, index) => {
    if (!item) return;
    const fail = (code: string, detail: string) => failures.push(new GrantFailure(code, detail, index));
    const role = roles.find((r) => (item.role_id !== undefined ? r.id === item.role_id : r.slug === item.role_slug));
    const roleName = item.role_id !== undefined ? `id ${item.role_id}` : `"${item.role_slug}"`;
    const nrn = canonicalNrn(item.nrn)!;
    if (!role) return fail(GRANT_CAUSES.roleNotFound, `role ${roleName} does not exist`);
    if (parseNrn(nrn)![0] !== String(user.organizationId)) {
      return fail(GRANT_CAUSES.outsideOrganization, `${nrn} is outside organization ${user.organizationId} of user ${user.id}`);
    }
    if (!role.userTypes.includes(user.type)) {
      return fail(GRANT_CAUSES.userType, `role "${role.slug}" cannot be granted to a ${user.type.replace('_', ' ')}`);
    }
    if (!access.canAssign(role, nrn)) return fail(GRANT_CAUSES.notAssignable, `you may not assign role "${role.slug}" on ${nrn}`);
    const key = grantKey(nrn, role.id);
    const first = seen.get(key);
    if (first !== undefined)
      return fail(GRANT_CAUSES.duplicate, `role "${role.slug}" on ${nrn} is requested twice (items ${first} and ${index})`);
    seen.set(key, index);
    resolved.push({ index, nrn, roleId: role.id, role, status: role.requiresApproval ? 'pending' : 'active' });
  });
  if (failures.length > 0) {
    // Failing anyway: name the valid items that already exist too (the insert's own check stays the last word).
    const existing = new Set(
      (await GrantRepository.of(dataSource.manager).existingPairs(user, resolved)).map((row) => grantKey(row.nrn, row.roleId)),
    );
    for (const g of resolved) if (existing.has(grantKey(g.nrn, g.roleId))) failures.push(duplicateOf(g));
    throw new GrantFailures(failures);
  }
  return resolved;
}

const MAX_ATTEMPTS = 3;

async function insertAll(
  dataSource: DataSource,
  access: Access,
  user: UserEntity,
  resolved: Resolved[],
  audit: AuditTrail,
): Promise<CreatedGrant[]> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await dataSource.transaction(async (manager) => {
        const grants = GrantRepository.of(manager);
        const existing = new Set((await grants.existingPairs(user, resolved)).map((row) => grantKey(row.nrn, row.roleId)));
        const clashes = resolved.filter((g) => existing.has(grantKey(g.nrn, g.roleId)));
        if (clashes.length > 0) throw new GrantFailures(clashes.map(duplicateOf));
        const inserted = await grants.insertMany(user, resolved, access.caller.userId);
        const byKey = new Map(inserted.map((row) => [grantKey(row.nrn, row.roleId), row]));
        // A concurrent request committed one of ours between the check and the insert.
        const lost = resolved.find((g) => !byKey.has(grantKey(g.nrn, g.roleId)));
        if (lost) throw new GrantFailures([duplicateOf(lost)]);
        const created = resolved.map((g) => ({ grant: byKey.get(grantKey(g.nrn, g.roleId))!, role: g.role }));
        for (const { grant, role } of created)
          await audit.record(manager, { nrn: grant.nrn, id: grant.id, details: grantDetails(grant, role) });
        return created;
      });
    } catch (error) {
      // Overlapping concurrent inserts can still deadlock on the index; retrying is safe (nothing was kept).
      if (attempt < MAX_ATTEMPTS && (error as { code?: unknown }).code === '40P01') continue;
      throw error;
    }
  }
}

function duplicateOf(grant: Resolved): GrantFailure {
  return new GrantFailure(GRANT_CAUSES.duplicate, `user already has role "${grant.role.slug}" on ${grant.nrn}`, grant.index);
}
