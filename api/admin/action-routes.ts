/**
 * Actions of a service. Parameters and results are validated against the
 * schemas of the action specification (the desired one when set).
 */
import type { Static } from '@sinclair/typebox';
import type { DataSource, EntityManager } from 'typeorm';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ActionSpecificationEntity } from '../../db/entities/action-specification';
import type { ServiceEntity } from '../../db/entities/service';
import type { ServiceActionEntity } from '../../db/entities/service-action';
import { ActionSpecificationRepository } from '../../db/repositories/action-specification-repository';
import { ServiceActionRepository } from '../../db/repositories/service-action-repository';
import { loadAccess } from '../access/access';
import type { AuditTrail } from '../audit/trail';
import type { AdminDeps } from './deps';
import { ADMIN_ERRORS, Paged, UuidParams } from './schemas/common';
import { Action, ActionParams, CreateActionBody, ListActionsQuery, UpdateActionBody, type Message } from './schemas/services';
import { isoDate } from './serialize';
import { accessibleService } from './service-routes';
import { slugify } from './slug';
import { compileUserSchema } from './user-schema';
import { actionNotFound, tooManyActionMessages, actionUnknownSpecification, schemaMismatch } from './errors';
import { DEFAULT_LIMITS } from '../../config/limits';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = 'the NRN of the service the action belongs to';

const actionOut = (a: ServiceActionEntity) => ({
  id: a.id,
  name: a.name,
  slug: a.slug,
  specification_id: a.specificationId,
  desired_specification_id: a.desiredSpecificationId,
  messages: a.messages,
  created_at: isoDate(a.createdAt),
  updated_at: isoDate(a.updatedAt),
  status: a.status,
  parameters: a.parameters,
  results: a.results,
  service_id: a.serviceId,
  link_id: a.linkId,
  created_by: a.createdBy,
});

/** An action specification of the service's own specification. */
async function actionSpecOf(dataSource: DataSource, service: ServiceEntity, id: string, field: string): Promise<ActionSpecificationEntity> {
  const spec = await ActionSpecificationRepository.of(dataSource.manager).findOneBy({ id });
  if (!spec || spec.serviceSpecificationId !== service.specificationId) {
    throw actionUnknownSpecification(field, id);
  }
  return spec;
}

function checkAgainst(schema: Record<string, unknown>, value: Record<string, unknown>, field: 'parameters' | 'results'): void {
  const errors = compileUserSchema(schema, 'service', `/action_specification/${field}`).validate(value);
  if (errors.length > 0) {
    throw schemaMismatch(`ACTION.INVALID_${field.toUpperCase()}`, field, 'the action specification', errors);
  }
}

/** An action's write in the audit trail: its service's NRN, the action and its status (parameters and results are the action's data). */
function recordAction(
  manager: EntityManager,
  audit: AuditTrail,
  service: ServiceEntity,
  action: ServiceActionEntity,
  details: Record<string, unknown>,
) {
  return audit.record(manager, {
    organizationId: String(service.organizationId),
    nrn: service.entityNrn,
    id: action.id,
    details: { ...details, serviceId: service.id, name: action.name, status: action.status },
  });
}

const stamped = (messages: Array<Static<typeof Message>>) =>
  messages.map((m) => ({ level: m.level ?? 'info', message: m.message, timestamp: m.timestamp ?? Date.now() }));

export function actionRoutes({ dataSource, limits = DEFAULT_LIMITS }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/service/{id}/action',
      operationId: 'createServiceAction',
      summary: 'Start an action on a service.',
      tags: ['services'],
      access: { permission: 'action:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'action.create' },
      params: UuidParams,
      body: CreateActionBody,
      responses: { 201: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const service = await accessibleService(dataSource, access, params.id, 'action:write');
        const spec = await actionSpecOf(dataSource, service, body.specification_id, 'specification_id');
        const parameters = body.parameters ?? {};
        checkAgainst(spec.parameters, parameters, 'parameters');
        const name = body.name ?? spec.name;
        const action = await dataSource.transaction(async (manager) => {
          const row = await ServiceActionRepository.of(manager).insertAction({
            serviceId: service.id,
            name,
            slug: slugify(name, 255, 'action'),
            specificationId: spec.id,
            status: 'pending',
            parameters,
            createdBy: access.caller.subject,
          });
          await recordAction(manager, audit, service, row, {});
          return row;
        });
        return { status: 201, body: actionOut(action) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service/{id}/action',
      operationId: 'listServiceActions',
      summary: 'List the actions of a service, oldest first.',
      tags: ['services'],
      access: { permission: 'action:read', inHandler: CHECKED_IN_HANDLER },
      params: UuidParams,
      query: ListActionsQuery,
      responses: { 200: { description: 'A page of actions', schema: Paged(Action) } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, query, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.id, 'action:read');
        const page = await ServiceActionRepository.of(dataSource.manager).page(service.id, query.offset, query.limit);
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map(actionOut) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service/{serviceId}/action/{id}',
      operationId: 'getServiceAction',
      summary: 'Read an action of a service.',
      tags: ['services'],
      access: { permission: 'action:read', inHandler: CHECKED_IN_HANDLER },
      params: ActionParams,
      responses: { 200: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.serviceId, 'action:read');
        const action = await ServiceActionRepository.of(dataSource.manager).findOneBy({ serviceId: service.id, id: params.id });
        if (!action) throw actionNotFound(params.id);
        return { status: 200, body: actionOut(action) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/service/{serviceId}/action/{id}',
      operationId: 'updateServiceAction',
      summary: 'Update an action: any status, new messages (appended), parameters and results checked against its specification.',
      tags: ['services'],
      access: { permission: 'action:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'action.update' },
      params: ActionParams,
      body: UpdateActionBody,
      responses: { 200: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth, audit }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.serviceId, 'action:write');
        const actions = ServiceActionRepository.of(dataSource.manager);
        const action = await actions.findOneBy({ serviceId: service.id, id: params.id });
        if (!action) throw actionNotFound(params.id);
        const desiredId = body.desired_specification_id === undefined ? action.desiredSpecificationId : body.desired_specification_id;
        const spec = await actionSpecOf(
          dataSource,
          service,
          desiredId ?? action.specificationId,
          desiredId ? 'desired_specification_id' : 'specification_id',
        );
        if (body.parameters) checkAgainst(spec.parameters, body.parameters, 'parameters');
        if (body.results) checkAgainst(spec.results, body.results, 'results');
        const updated = await dataSource.transaction(async (manager) => {
          const row = await ServiceActionRepository.of(manager).change(
            action.id,
            {
              name: body.name,
              slug: body.name === undefined ? undefined : slugify(body.name, 255, 'action'),
              desiredSpecificationId: body.desired_specification_id,
              status: body.status,
              parameters: body.parameters,
              results: body.results,
              messages: body.messages && stamped(body.messages),
            },
            limits.maxActionMessages,
          );
          if (row) await recordAction(manager, audit, service, row, { changed: Object.keys(body) });
          return row;
        });
        if (!updated) {
          if (!(await actions.existsBy({ id: action.id }))) throw actionNotFound(params.id);
          throw tooManyActionMessages(limits.maxActionMessages);
        }
        return { status: 200, body: actionOut(updated) };
      },
    }),
  ];
}
