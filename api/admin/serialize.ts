/** Entities to contract shapes (snake_case, timestamps as ISO strings, no internal columns). */
import type { GrantEntity } from '../../db/entities/grant';
import type { RoleEntity } from '../../db/entities/role';
import type { UserEntity } from '../../db/entities/user';
import { iso } from '../http/iso-date';

/** `format: date` fields of the contract (service specifications, actions). */
export const isoDate = (value: Date | string): string => iso(value).slice(0, 10);

export const grantOut = (g: GrantEntity, role: Pick<RoleEntity, 'slug'>) => ({
  id: g.id,
  nrn: g.nrn,
  // The contract's ids are integers; internally they stay strings (see UserEntity).
  user_id: Number(g.userId),
  role_id: g.roleId,
  role_slug: role.slug,
  status: g.status,
  created_at: iso(g.createdAt),
});

export const userOut = (u: UserEntity) => ({
  id: Number(u.id),
  organization_id: Number(u.organizationId),
  type: u.type,
  email: u.email,
  name: u.name,
  created_at: iso(u.createdAt),
});

export const roleOut = (r: RoleEntity) => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  assignable_to_user_types: r.userTypes,
  assignable_by: r.assignableBy,
  requires_approval: r.requiresApproval,
});
