/** Action specifications of a service specification: the generated defaults and custom ones. */
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../http/route';
import { isUniqueViolation } from '../../db/sql';
import type { ActionSpecificationEntity } from '../../db/entities/action-specification';
import { ActionSpecificationRepository } from '../../db/repositories/action-specification-repository';
import { loadAccess } from '../access/access';
import { organizationNrn } from '../access/nrn';
import type { AdminDeps } from './deps';
import { ADMIN_ERRORS, Uuid, UuidParams } from './schemas/common';
import { ActionSpecification, CreateActionSpecificationBody } from './schemas/service-specifications';
import { iso } from '../http/iso-date';
import { visibleSpec } from './service-specification-routes';
import { slugify } from './slug';
import { compileUserSchema } from './user-schema';
import { actionSpecificationSlugTaken, actionSpecificationNotFound } from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "its service specification's visibility list (visible_to)";

export const actionSpecOut = (a: ActionSpecificationEntity) => ({
  id: a.id,
  service_specification_id: a.serviceSpecificationId,
  name: a.name,
  slug: a.slug,
  type: a.type,
  parameters: a.parameters,
  results: a.results,
  created_at: iso(a.createdAt),
  updated_at: iso(a.updatedAt),
});

export function actionSpecificationRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/service_specification/{id}/action_specification',
      operationId: 'listActionSpecifications',
      summary: 'List the action specifications of a service specification.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:read', inHandler: CHECKED_IN_HANDLER },
      params: UuidParams,
      responses: { 200: { description: 'Action specifications', schema: Type.Object({ results: Type.Array(ActionSpecification) }) } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const spec = await visibleSpec(dataSource, await loadAccess(dataSource, auth), params.id);
        return {
          status: 200,
          body: { results: (await ActionSpecificationRepository.of(dataSource.manager).ofSpecification(spec.id)).map(actionSpecOut) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service_specification/{id}/action_specification/{actionSpecificationId}',
      operationId: 'getActionSpecification',
      summary: 'Read one action specification.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:read', inHandler: CHECKED_IN_HANDLER },
      params: Type.Object({ id: Uuid, actionSpecificationId: Uuid }),
      responses: { 200: { description: 'The action specification', schema: ActionSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const spec = await visibleSpec(dataSource, await loadAccess(dataSource, auth), params.id);
        const action = await ActionSpecificationRepository.of(dataSource.manager).findOneBy({ id: params.actionSpecificationId });
        if (!action || action.serviceSpecificationId !== spec.id) {
          throw actionSpecificationNotFound(params.actionSpecificationId);
        }
        return { status: 200, body: actionSpecOut(action) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/service_specification/{id}/action_specification',
      operationId: 'createActionSpecification',
      summary: 'Add a custom action specification with JSON Schemas for its parameters and results.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'action_specification.create' },
      params: UuidParams,
      body: CreateActionSpecificationBody,
      responses: { 201: { description: 'The action specification', schema: ActionSpecification } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, body, auth, audit }) => {
        const spec = await visibleSpec(dataSource, await loadAccess(dataSource, auth), params.id, true);
        const parameters = body.parameters ?? { type: 'object' };
        const results = body.results ?? { type: 'object' };
        compileUserSchema(parameters, 'service', '/parameters');
        compileUserSchema(results, 'service', '/results');
        const slug = slugify(body.name, 255, 'action');
        try {
          const created = await dataSource.transaction(async (manager) => {
            const row = await ActionSpecificationRepository.of(manager).insertCustom(spec.id, {
              name: body.name,
              slug,
              type: 'custom',
              parameters,
              results,
            });
            await audit.record(manager, {
              organizationId: String(spec.organizationId),
              nrn: organizationNrn(spec.organizationId),
              id: row.id,
              details: { serviceSpecificationId: spec.id, name: row.name, slug: row.slug },
            });
            return row;
          });
          return { status: 201, body: actionSpecOut(created) };
        } catch (error) {
          if (isUniqueViolation(error)) throw actionSpecificationSlugTaken(slug);
          throw error;
        }
      },
    }),
  ];
}
