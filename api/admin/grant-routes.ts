/** Grants of roles to users on NRNs, and the roles catalog. */
import { Type } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { forbidden } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { RoleRepository } from '../../db/repositories/role-repository';
import { loadAccess, type Access } from '../access/access';
import type { AdminDeps } from './deps';
import { bulkGrant, grantDetails } from './bulk-grants';
import { ADMIN_ERRORS, IdParams } from './schemas/common';
import { BulkGrantBody, Grant, GrantParams, Role } from './schemas/grants';
import { grantOut, roleOut } from './serialize';
import { isCaller, visibleUser } from './user-routes';
import { grantNotFound, organizationNotFound, userNotFound, grantNotPending } from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "the grant's NRN and the role's assignable_by, or the organization of the user {id}";

/** A grant may be revoked or approved by whoever may assign its role on its NRN. */
async function manageableGrant(dataSource: DataSource, access: Access, userId: number, grantId: number) {
  const user = await visibleUser(dataSource, access, userId);
  const grant = await GrantRepository.of(dataSource.manager).findOneBy({
    organizationId: user.organizationId,
    userId: user.id,
    id: grantId,
  });
  if (!grant) throw grantNotFound(grantId);
  access.require('grant:write', grant.nrn, () => grantNotFound(grantId));
  const role = await RoleRepository.of(dataSource.manager).findOneByOrFail({ id: grant.roleId });
  if (!access.canAssign(role, grant.nrn)) throw forbidden(`You may not manage grants of role "${role.slug}" on ${grant.nrn}.`);
  return { grant, role };
}

export function grantRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/user/{id}/grant',
      operationId: 'createUserGrants',
      summary: 'Grant roles to a user on NRNs: 1 to 100 items, additive, all or nothing.',
      description:
        'Each item is `{nrn, role_slug}` or `{nrn, role_id}`. A failing item answers 400 `RESOURCE_GRANTS.BULK_CREATE_FAILED` with `cause {code, detail, index}` (the first failing item) and `causes` (every failing item, by index), and nothing is created.',
      tags: ['grants'],
      access: {
        permission: 'grant:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'grant.create' },
      params: IdParams,
      body: BulkGrantBody,
      responses: { 201: { description: 'The created grants, in request order', schema: Type.Array(Grant) } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const user = await visibleUser(dataSource, access, params.id);
        access.requireSomewhere('grant:write', user.organizationId, () => userNotFound(params.id));
        const grants = await bulkGrant(dataSource, access, user, body, audit);
        return { status: 201, body: grants.map(({ grant, role }) => grantOut(grant, role)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/{id}/grant',
      operationId: 'listUserGrants',
      summary: "List a user's grants (active and pending).",
      tags: ['grants'],
      access: { permission: 'grant:read', inHandler: CHECKED_IN_HANDLER },
      params: IdParams,
      responses: { 200: { description: 'The grants', schema: Type.Object({ results: Type.Array(Grant) }) } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const user = await visibleUser(dataSource, access, params.id);
        if (!isCaller(access, user)) access.requireSomewhere('grant:read', user.organizationId, () => userNotFound(params.id));
        // The catalog is a handful of rows: read at once with the grants, joined here.
        const [grants, roles] = await Promise.all([
          GrantRepository.of(dataSource.manager).ofUser(user),
          RoleRepository.of(dataSource.manager).catalog(),
        ]);
        const roleById = new Map(roles.map((role) => [role.id, role]));
        return { status: 200, body: { results: grants.map((grant) => grantOut(grant, roleById.get(grant.roleId)!)) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/user/{id}/grant/{grantId}',
      operationId: 'deleteUserGrant',
      summary: 'Revoke a grant.',
      tags: ['grants'],
      access: {
        permission: 'grant:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'grant.delete' },
      params: GrantParams,
      responses: { 204: { description: 'Revoked' } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const { grant, role } = await manageableGrant(dataSource, access, params.id, params.grantId);
        await dataSource.transaction(async (manager) => {
          await GrantRepository.of(manager).delete({ id: grant.id });
          await audit.record(manager, { nrn: grant.nrn, id: grant.id, details: grantDetails(grant, role) });
        });
        return { status: 204 };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/user/{id}/grant/{grantId}/approve',
      operationId: 'approveUserGrant',
      summary: 'Approve a pending grant (roles that require approval start pending).',
      tags: ['grants'],
      access: {
        permission: 'grant:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'grant.approve' },
      params: GrantParams,
      responses: { 200: { description: 'The approved grant', schema: Grant } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const { grant, role } = await manageableGrant(dataSource, access, params.id, params.grantId);
        if (grant.userId === access.caller.userId) throw forbidden('A grant cannot be approved by the user who holds it.');
        if (grant.status !== 'pending') throw grantNotPending(grant.id);
        await dataSource.transaction(async (manager) => {
          await GrantRepository.of(manager).update({ id: grant.id }, { status: 'active' });
          await audit.record(manager, { nrn: grant.nrn, id: grant.id, details: grantDetails(grant, role) });
        });
        return { status: 200, body: grantOut({ ...grant, status: 'active' }, role) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/role',
      operationId: 'listRoles',
      summary: 'The roles catalog.',
      tags: ['grants'],
      access: { permission: 'role:read', inHandler: CHECKED_IN_HANDLER },
      responses: { 200: { description: 'Every role', schema: Type.Object({ results: Type.Array(Role) }) } },
      errors: ADMIN_ERRORS,
      handler: async ({ auth }) => {
        const access = await loadAccess(dataSource, auth);
        const org = access.caller.organizationId;
        access.requireSomewhere('role:read', org, () => organizationNotFound(org));
        return { status: 200, body: { results: (await RoleRepository.of(dataSource.manager).catalog()).map(roleOut) } };
      },
    }),
  ];
}
