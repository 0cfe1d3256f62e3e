/** Users: the targets of grants. Callers are recorded on first sight (see access.ts); these routes register others. */
import { Type } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { UserEntity } from '../../db/entities/user';
import { UserRepository } from '../../db/repositories/user-repository';
import { loadAccess, type Access } from '../access/access';
import type { AdminDeps } from './deps';
import { organizationNrn } from '../access/nrn';
import { ADMIN_ERRORS, IdParams, IntegerId, Paged, PagingQuery } from './schemas/common';
import { CreateUserBody, User } from './schemas/grants';
import { userOut } from './serialize';
import { organizationNotFound, userNotFound, userAlreadyExists } from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = 'the organization the body or query names, or that of the user {id} (a caller may read itself)';

/**
 * The user `id` of the caller's organization (user ids name users within their
 * organization), provided the caller holds something there or is that user
 * (else 404, like a missing user).
 */
export async function visibleUser(dataSource: DataSource, access: Access, id: number): Promise<UserEntity> {
  const user = await UserRepository.of(dataSource.manager).findOneBy({ organizationId: access.caller.organizationId, id: String(id) });
  if (!user || (!access.inOrganization(access.caller.organizationId) && !isCaller(access, user))) throw userNotFound(id);
  return user;
}

export const isCaller = (access: Access, user: Pick<UserEntity, 'id'>): boolean => user.id === access.caller.userId;

export function userRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/user',
      operationId: 'createUser',
      summary: 'Register a user of an organization so that roles can be granted to it.',
      tags: ['users'],
      access: {
        permission: 'user:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'user.create' },
      body: CreateUserBody,
      responses: { 201: { description: 'The user', schema: User } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const org = body.organization_id;
        access.require('user:write', organizationNrn(org), () => organizationNotFound(org));
        const user = await dataSource.transaction(async (manager) => {
          const registered = await UserRepository.of(manager).register({
            id: body.id,
            organizationId: org,
            type: body.type ?? 'person',
            email: body.email,
            name: body.name,
          });
          if (registered)
            await audit.record(manager, {
              organizationId: String(org),
              nrn: organizationNrn(org),
              id: registered.id,
              details: { type: registered.type },
            });
          return registered;
        });
        if (!user) throw userAlreadyExists(body.id, org);
        return { status: 201, body: userOut(user) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user/{id}',
      operationId: 'getUser',
      summary: 'Read a user.',
      tags: ['users'],
      access: {
        permission: 'user:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      params: IdParams,
      responses: { 200: { description: 'The user', schema: User } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const user = await visibleUser(dataSource, access, params.id);
        if (!isCaller(access, user)) access.require('user:read', organizationNrn(user.organizationId), () => userNotFound(params.id));
        return { status: 200, body: userOut(user) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/user',
      operationId: 'listUsers',
      summary: 'List the users of an organization.',
      tags: ['users'],
      access: {
        permission: 'user:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      query: Type.Object({ organization_id: IntegerId, ...PagingQuery }),
      responses: { 200: { description: 'A page of users', schema: Paged(User) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const org = query.organization_id;
        access.require('user:read', organizationNrn(org), () => organizationNotFound(org));
        const page = await UserRepository.of(dataSource.manager).page(org, query.offset, query.limit);
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map(userOut) },
        };
      },
    }),
  ];
}
