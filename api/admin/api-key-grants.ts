/**
 * The grants asked for an API key, resolved and checked all or nothing: each
 * names a role that exists, on an NRN of the owner's organization, that the
 * owner's user type may hold, and whose every permission the owner holds on
 * that NRN (a key only narrows its owner; as bulk grants refuse a role the
 * caller may not assign). Failures name every failing item (`causes`).
 */
import type { DataSource } from 'typeorm';
import type { ApiKeyGrant } from '../../db/entities/api-key';
import { RoleRepository } from '../../db/repositories/role-repository';
import type { Access } from '../access/access';
import { canonicalNrn, parseNrn } from '../access/nrn';
import { apiKeyGrantsRefused } from './errors';

export const API_KEY_GRANT_CAUSES = {
  roleNotFound: 'API_KEY.ROLE_NOT_FOUND',
  outsideOrganization: 'API_KEY.NRN_OUTSIDE_ORGANIZATION',
  userType: 'API_KEY.ROLE_USER_TYPE_RESTRICTED',
  notHeld: 'API_KEY.GRANT_NOT_HELD',
  duplicate: 'API_KEY.DUPLICATE_GRANT',
} as const;

type Item = { nrn: string; role_slug?: string; role_id?: number };

export async function resolveKeyGrants(dataSource: DataSource, access: Access, items: readonly Item[]): Promise<ApiKeyGrant[]> {
  const roles = await RoleRepository.of(dataSource.manager).findByIdsOrSlugs(
    items.flatMap((i) => (i.role_id === undefined ? [] : [i.role_id])),
    items.flatMap((i) => (i.role_slug === undefined ? [] : [i.role_slug])),
  );
  const { organizationId, userType } = access.caller;
  const failures: Array<{ code: string; detail: string; index: number }> = [];
  const seen = new Set<string>();
  const grants: ApiKeyGrant[] = [];
  items.forEach((item, index) => {
    const fail = (code: string, detail: string) => failures.push({ code, detail, index });
    const role = roles.find((r) => (item.role_id !== undefined ? r.id === item.role_id : r.slug === item.role_slug));
    const nrn = canonicalNrn(item.nrn)!;
    if (!role) return fail(API_KEY_GRANT_CAUSES.roleNotFound, `role ${item.role_id ?? `"${item.role_slug}"`} does not exist`);
    if (parseNrn(nrn)![0] !== organizationId) {
      return fail(API_KEY_GRANT_CAUSES.outsideOrganization, `${nrn} is outside organization ${organizationId}`);
    }
    if (!role.userTypes.includes(userType)) {
      return fail(API_KEY_GRANT_CAUSES.userType, `role "${role.slug}" cannot be held by a ${userType.replace('_', ' ')}`);
    }
    if (!access.holdsAll(role.permissions, nrn)) {
      return fail(API_KEY_GRANT_CAUSES.notHeld, `you do not hold every permission of role "${role.slug}" on ${nrn}`);
    }
    const key = `${role.id} ${nrn}`;
    if (seen.has(key)) return fail(API_KEY_GRANT_CAUSES.duplicate, `role "${role.slug}" on ${nrn} is asked twice`);
    seen.add(key);
    grants.push({ nrn, role_id: role.id, role_slug: role.slug });
  });
  if (failures.length > 0) throw apiKeyGrantsRefused(failures);
  return grants;
}
