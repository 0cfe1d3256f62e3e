/**
 * What the caller may do, from the caller's active grants (loaded once per
 * request). A grant on an NRN covers everything beneath it. An organization in
 * which the caller holds nothing answers 404 (its resources are not even
 * acknowledged); a missing permission inside it answers 403.
 */
import type { DataSource } from 'typeorm';
import type { AuthContext } from '../http/auth';
import { forbidden, unauthorized, type HttpError } from '../http/errors';
import type { RoleEntity } from '../../db/entities/role';
import {
  GrantRepository,
  type CallerGrants,
  type CallerGrantsRead,
  type CallerKey,
  type HeldGrants,
} from '../../db/repositories/grant-repository';
import { nrnContains, parseNrn, type Nrn } from './nrn';
import { permits, type Permission } from '../http/permissions';
import { coversPermission, narrowToKey } from './key-grants';
import { ApiKeyRepository } from '../../db/repositories/api-key-repository';

export interface HeldGrant {
  nrn: Nrn;
  roleSlug: string;
  permissions: string[];
}

/**
 * Ids are canonical decimal strings (api/http/auth.ts `canonicalId`), compared as
 * strings: a number would round ids above 2^53 and merge two tenants.
 */
export interface Caller {
  userId: string;
  organizationId: string;
  userType: AuthContext['userType'];
  /** The token subject, as stored in `created_by` fields. */
  subject: string;
  /** A token minted for an API key: the key, and its grants, which narrow the user's (api/access/key-grants.ts). */
  apiKey?: { id: string; grants: NonNullable<AuthContext['grants']> };
}

export class Access {
  constructor(
    readonly caller: Caller,
    private readonly grants: HeldGrant[],
    /** The grants as read (HeldGrants.asOf), for writes that must happen under these very grants. */
    readonly grantsAsOf = '',
  ) {}

  /** True when the caller holds any grant that reaches into the organization. */
  inOrganization(organizationId: string | number): boolean {
    const id = String(organizationId);
    return this.grants.some((g) => g.nrn[0] === '*' || g.nrn[0] === id);
  }

  /** True when a grant containing `target` carries the permission. */
  can(permission: Permission, target: string): boolean {
    const nrn = parseNrn(target);
    return nrn !== undefined && this.grants.some((g) => nrnContains(g.nrn, nrn) && permits(g.permissions, permission));
  }

  /**
   * Throws `notFound` when the caller has nothing in the target's organization,
   * 403 when the permission is missing.
   */
  require(permission: Permission, target: string, notFound: () => HttpError): void {
    if (this.can(permission, target)) return;
    const nrn = parseNrn(target);
    if (!nrn || !this.inOrganization(nrn[0] ?? '')) throw notFound();
    throw forbidden(`You need the ${permission} permission on ${target}.`);
  }

  /**
   * For operations whose target is the organization as a whole but that finer
   * checks narrow later (granting roles on NRNs inside it): the permission on
   * any NRN of the organization.
   */
  requireSomewhere(permission: Permission, organizationId: string | number, notFound: () => HttpError): void {
    const id = String(organizationId);
    if (this.grants.some((g) => (g.nrn[0] === '*' || g.nrn[0] === id) && permits(g.permissions, permission))) return;
    if (!this.inOrganization(id)) throw notFound();
    throw forbidden(`You need the ${permission} permission in organization ${id}.`);
  }

  /** Like {@link require}, for a permission on each of several NRNs. */
  requireAll(permission: Permission, targets: readonly string[], notFound: () => HttpError): void {
    for (const target of targets) this.require(permission, target, notFound);
  }

  /**
   * Read access to something visible at several NRNs: a grant that contains
   * one of them, or sits beneath one of them (whoever works inside an account
   * sees what is visible to its whole organization).
   */
  canSee(permission: Permission, visibleTo: readonly string[]): boolean {
    const targets = visibleTo.map(parseNrn).filter((n): n is Nrn => n !== undefined);
    return this.grants.some(
      (g) => permits(g.permissions, permission) && targets.some((t) => nrnContains(g.nrn, t) || nrnContains(t, g.nrn)),
    );
  }

  /**
   * The accounts of an organization on which the caller holds `permission`:
   * `'all'` through a grant on the organization (or on `account=*`), else the ids
   * of the accounts granted one by one.
   */
  accountsWith(permission: Permission, organizationId: string | number): 'all' | number[] {
    const org = String(organizationId);
    const ids = new Set<number>();
    for (const g of this.grants) {
      if (!permits(g.permissions, permission) || (g.nrn[0] !== '*' && g.nrn[0] !== org)) continue;
      if (g.nrn.length === 1 || (g.nrn.length === 2 && g.nrn[1] === '*')) return 'all';
      if (g.nrn.length === 2 && g.nrn[1] !== undefined) ids.add(Number(g.nrn[1]));
    }
    return [...ids];
  }

  /** Whether grants containing `target` hold every one of `permissions` (wildcards included): what an API key may be given. */
  holdsAll(permissions: readonly string[], target: string): boolean {
    const nrn = parseNrn(target);
    if (nrn === undefined) return false;
    const reaching = this.grants.filter((g) => nrnContains(g.nrn, nrn));
    return permissions.every((p) => reaching.some((g) => coversPermission(g.permissions, p)));
  }

  /** Whether the caller holds one of these roles on an NRN containing `target` (a wait's approvers). */
  holdsRole(roles: readonly string[], target: string): boolean {
    const nrn = parseNrn(target);
    return nrn !== undefined && this.grants.some((g) => nrnContains(g.nrn, nrn) && roles.includes(g.roleSlug));
  }

  /** Whether the caller holds, on an NRN containing `target`, a role allowed to assign `role`. */
  canAssign(role: Pick<RoleEntity, 'assignableBy'>, target: string): boolean {
    const nrn = parseNrn(target);
    return nrn !== undefined && this.grants.some((g) => nrnContains(g.nrn, nrn) && role.assignableBy.includes(g.roleSlug));
  }
}

export function callerFrom(auth: AuthContext): Caller {
  const caller: Caller = { userId: auth.userId, organizationId: auth.organizationId, userType: auth.userType, subject: auth.userId };
  if (auth.apiKeyId !== undefined) caller.apiKey = { id: auth.apiKeyId, grants: auth.grants ?? [] };
  return caller;
}

/**
 * The caller's active grants, read afresh on every call: a revoked grant takes
 * effect on the next request. (A remembered access may stand in for this read
 * only before a write that checks, in its own statement, that the grants are
 * unchanged: api/access/recent-access.ts.)
 *
 * The same statement answers the type the caller's user was recorded with (at
 * first sight): a token whose `user_type` claims another type is refused with
 * 401, so a service account's token never acts with a person's grants, nor the
 * reverse. Grants of roles whose `user_types` leave out the user's type are not
 * read at all (GrantRepository's heldGrantsSql).
 */
export async function loadAccess(dataSource: DataSource, auth: AuthContext): Promise<Access> {
  await requireLiveKey(dataSource, auth);
  return checkedAccess(auth, await GrantRepository.of(dataSource.manager).activeOfCaller(callerKeyOf(auth)));
}

/** A token minted for an API key stops working as soon as the key is revoked or expires (401), not at the token's end. */
async function requireLiveKey(dataSource: DataSource, auth: AuthContext): Promise<void> {
  if (auth.apiKeyId === undefined) return;
  if (!(await ApiKeyRepository.of(dataSource.manager).isLive(auth.apiKeyId, auth.organizationId, auth.userId))) {
    throw unauthorized('The API key this token was minted for has been revoked or has expired.');
  }
}

/**
 * As {@link loadAccess}, from the caller's grants read by the statement that
 * read the request's rows (GrantRepository's callerGrantsColumns): the same
 * grants at the same instant, one round trip fewer.
 */
export async function accessFromRead(dataSource: DataSource, auth: AuthContext, read: CallerGrantsRead): Promise<Access> {
  await requireLiveKey(dataSource, auth);
  return checkedAccess(auth, await GrantRepository.of(dataSource.manager).callerGrantsOf(read, callerKeyOf(auth)));
}

/** The caller's ids and token type, as the grant statements take them. */
export function callerKeyOf(auth: AuthContext): CallerKey {
  return { id: auth.userId, organizationId: auth.organizationId, type: auth.userType };
}

/** The access the grants give, once the token's user type is the one the user is recorded with. */
function checkedAccess(auth: AuthContext, held: CallerGrants): Access {
  const caller = callerFrom(auth);
  if (held.userType !== caller.userType) {
    throw unauthorized(
      `The bearer token's "user_type" claim is ${caller.userType}, but user ${caller.userId} of organization ${caller.organizationId} is a ${held.userType}.`,
    );
  }
  return accessOf(caller, held);
}

/** The access that grants as read give the caller (narrowed to an API key's grants for a key's token). */
export function accessOf(caller: Caller, held: HeldGrants): Access {
  const grants = held.rows.flatMap((row) => {
    const nrn = parseNrn(row.nrn);
    return nrn ? [{ nrn, roleSlug: row.roleSlug, permissions: row.permissions }] : [];
  });
  return new Access(caller, caller.apiKey ? narrowToKey(grants, caller.apiKey.grants) : grants, held.asOf);
}

/**
 * Loads the caller's grants (afresh) and requires `permission` on `target`:
 * `notFound` when the caller holds nothing in the target's organization, 403
 * when the permission is missing. Answers the access for further checks.
 */
export async function authorize(
  dataSource: DataSource,
  auth: AuthContext,
  permission: Permission,
  target: string,
  notFound: () => HttpError,
): Promise<Access> {
  const access = await loadAccess(dataSource, auth);
  access.require(permission, target, notFound);
  return access;
}
