/**
 * Actions of a service. Parameters and results are validated against the
 * schemas of the action specification (the desired one when set).
 */
import type { Static } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { HttpError, notFound } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { findActionSpec, type ActionSpecRecord } from '../../db/stores/service-specifications';
import {
  findAction,
  insertAction,
  listActions,
  updateAction,
  type ServiceActionRecord,
  type ServiceRecord,
} from '../../db/stores/services';
import { loadAccess } from './access';
import { ADMIN_ERRORS, Paged, UuidParams } from './schemas/common';
import { Action, ActionParams, CreateActionBody, ListActionsQuery, UpdateActionBody, type Message } from './schemas/services';
import { isoDate } from './serialize';
import { accessibleService } from './services';
import { slugify } from './slug';
import { compileUserSchema } from './user-schema';

const actionNotFound = (id: string) => notFound(`Action ${id} not found.`, 'ACTION.NOT_FOUND');

const actionOut = (a: ServiceActionRecord) => ({
  id: a.id,
  name: a.name,
  slug: a.slug,
  specification_id: a.specification_id,
  desired_specification_id: a.desired_specification_id,
  messages: a.messages,
  created_at: isoDate(a.created_at),
  updated_at: isoDate(a.updated_at),
  status: a.status,
  parameters: a.parameters,
  results: a.results,
  service_id: a.service_id,
  link_id: a.link_id,
  created_by: a.created_by,
});

/** An action specification of the service's own specification. */
async function actionSpecOf(dataSource: DataSource, service: ServiceRecord, id: string, field: string): Promise<ActionSpecRecord> {
  const spec = await findActionSpec(dataSource.manager, id);
  if (!spec || spec.service_specification_id !== service.specification_id) {
    throw new HttpError(
      400,
      'ACTION.UNKNOWN_SPECIFICATION',
      `${field} ${id} is not an action specification of this service's specification.`,
    );
  }
  return spec;
}

function checkAgainst(schema: Record<string, unknown>, value: Record<string, unknown>, field: 'parameters' | 'results'): void {
  const errors = compileUserSchema(schema, 'service', `/action_specification/${field}`).validate(value);
  if (errors.length > 0) {
    throw new HttpError(
      400,
      `ACTION.INVALID_${field.toUpperCase()}`,
      `${field} do not match the action specification: /${field}${errors[0].path} ${errors[0].message}`,
      {
        errors: errors.map((e) => ({ ...e, path: `/${field}${e.path}` })),
      },
    );
  }
}

const stamped = (messages: Array<Static<typeof Message>>) =>
  messages.map((m) => ({ level: m.level ?? 'info', message: m.message, timestamp: m.timestamp ?? Date.now() }));

export function actionRoutes({ dataSource }: { dataSource: DataSource }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/service/{id}/action',
      operationId: 'createServiceAction',
      summary: 'Start an action on a service.',
      tags: ['services'],
      access: { permission: 'action:write' },
      params: UuidParams,
      body: CreateActionBody,
      responses: { 201: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const service = await accessibleService(dataSource, access, params.id, 'action:write');
        const spec = await actionSpecOf(dataSource, service, body.specification_id, 'specification_id');
        const parameters = body.parameters ?? {};
        checkAgainst(spec.parameters, parameters, 'parameters');
        const name = body.name ?? spec.name;
        const action = await insertAction(dataSource.manager, {
          service_id: service.id,
          name,
          slug: slugify(name, 255, 'action'),
          specification_id: spec.id,
          status: 'pending',
          parameters,
          created_by: access.caller.subject,
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
      access: { permission: 'action:read' },
      params: UuidParams,
      query: ListActionsQuery,
      responses: { 200: { description: 'A page of actions', schema: Paged(Action) } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, query, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.id, 'action:read');
        const page = await listActions(dataSource.manager, service.id, query.offset, query.limit);
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
      access: { permission: 'action:read' },
      params: ActionParams,
      responses: { 200: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.serviceId, 'action:read');
        const action = await findAction(dataSource.manager, service.id, params.id);
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
      access: { permission: 'action:write' },
      params: ActionParams,
      body: UpdateActionBody,
      responses: { 200: { description: 'The action', schema: Action } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.serviceId, 'action:write');
        const action = await findAction(dataSource.manager, service.id, params.id);
        if (!action) throw actionNotFound(params.id);
        const desiredId = body.desired_specification_id === undefined ? action.desired_specification_id : body.desired_specification_id;
        const spec = await actionSpecOf(
          dataSource,
          service,
          desiredId ?? action.specification_id,
          desiredId ? 'desired_specification_id' : 'specification_id',
        );
        if (body.parameters) checkAgainst(spec.parameters, body.parameters, 'parameters');
        if (body.results) checkAgainst(spec.results, body.results, 'results');
        const updated = await updateAction(dataSource.manager, action.id, {
          ...body,
          slug: body.name === undefined ? undefined : slugify(body.name, 255, 'action'),
          messages: body.messages && stamped(body.messages),
        });
        return { status: 200, body: actionOut(updated) };
      },
    }),
  ];
}
