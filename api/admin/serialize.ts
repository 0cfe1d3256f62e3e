/** Entities to contract shapes (snake_case, timestamps as ISO strings, no internal columns). */
import type { ApiKeyEntity } from '../../db/entities/api-key';
import type { GrantEntity } from '../../db/entities/grant';
import type { RoleEntity } from '../../db/entities/role';
import type { UserEntity } from '../../db/entities/user';
import { iso } from '../http/iso-date';
import { maskedKey } from './api-key-value';

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

export const apiKeyOut = (k: ApiKeyEntity) => ({
  id: k.id,
  name: k.name,
  masked_api_key: maskedKey(k.prefix),
  grants: k.grants.map((g) => ({ nrn: g.nrn, role_id: g.role_id, role_slug: g.role_slug })),
  tags: k.tags,
  owner_id: Number(k.ownerId),
  last_used_at: k.lastUsedAt === null ? null : iso(k.lastUsedAt),
  expires_at: iso(k.expiresAt),
  created_at: iso(k.createdAt),
  updated_at: iso(k.updatedAt),
});
