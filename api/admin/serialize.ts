/** Database rows to contract shapes (timestamps as ISO strings, no internal columns). */
import type { GrantRecord, RoleRecord, UserRecord } from '../../db/stores/authorization';
import { iso } from '../http/iso-date';

/** `format: date` fields of the contract (service specifications, actions). */
export const isoDate = (value: Date | string): string => iso(value).slice(0, 10);

export const grantOut = (g: GrantRecord) => ({
  id: g.id,
  nrn: g.nrn,
  user_id: g.user_id,
  role_id: g.role_id,
  role_slug: g.role_slug,
  status: g.status,
  created_at: iso(g.created_at),
});

export const userOut = (u: UserRecord) => ({
  id: u.id,
  organization_id: u.organization_id,
  type: u.type,
  email: u.email,
  name: u.name,
  created_at: iso(u.created_at),
});

export const roleOut = (r: RoleRecord) => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  description: r.description,
  permissions: r.permissions,
  assignable_to_user_types: r.user_types,
  assignable_by: r.assignable_by,
  requires_approval: r.requires_approval,
});
