/** Service specifications: create, read, list with visibility, update, delete. */
import type { DataSource } from 'typeorm';
import { HttpError, notFound } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { isUniqueViolation } from '../../db/sql';
import {
  deleteServiceSpec,
  findServiceSpec,
  insertServiceSpec,
  listServiceSpecs,
  removeUnusedDefaultActionSpecs,
  serviceCounts,
  serviceSpecSlugsLike,
  updateServiceSpec,
  upsertDefaultActionSpecs,
  type ServiceSpecFields,
  type ServiceSpecRecord,
} from '../../db/stores/service-specifications';
import { loadAccess, type Access } from './access';
import { canonicalNrn, containingNrns, organizationNrn, parseNrn } from './nrn';
import { ADMIN_ERRORS, Paged, UuidParams } from './schemas/common';
import {
  CreateServiceSpecificationBody,
  ListServiceSpecificationsQuery,
  ServiceSpecification,
  UpdateServiceSpecificationBody,
} from './schemas/service-specifications';
import { isoDate } from './serialize';
import { checkAttributes, checkScopes, defaultActionSpecs, ownerOf, withDefaults } from './service-specification-rules';
import { slugCandidate, slugify } from './slug';

export const specNotFound = (id: string) => () => notFound(`Service specification ${id} not found.`, 'SERVICE_SPECIFICATION.NOT_FOUND');

export function specOut(s: ServiceSpecRecord) {
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    visible_to: s.visible_to,
    attributes: s.attributes,
    selectors: s.selectors,
    type: s.type,
    dimensions: s.dimensions,
    assignable_to: s.assignable_to,
    use_default_actions: s.use_default_actions,
    use_default_naming: s.use_default_naming,
    scopes: s.scopes,
    package_id: s.package_id,
    created_at: isoDate(s.created_at),
    updated_at: isoDate(s.updated_at),
  };
}

/** The specification, if the caller may see it (404 from another organization, 403 without the permission). */
export async function visibleSpec(dataSource: DataSource, access: Access, id: string, write = false): Promise<ServiceSpecRecord> {
  const spec = await findServiceSpec(dataSource.manager, id);
  if (!spec || !access.inOrganization(spec.organization_id)) throw specNotFound(id)();
  if (write) access.requireAll('service_specification:write', spec.visible_to, specNotFound(id));
  else if (!access.canSee('service_specification:read', spec.visible_to)) {
    throw new HttpError(403, 'forbidden', `You need the service_specification:read permission where specification ${id} is visible.`);
  }
  return spec;
}

/** Writes the specification and keeps its default action specifications in step, in one transaction. */
async function save(dataSource: DataSource, fields: ServiceSpecFields, id?: string): Promise<ServiceSpecRecord> {
  return dataSource.transaction(async (manager) => {
    const spec = id === undefined ? await insertServiceSpec(manager, fields) : await updateServiceSpec(manager, id, fields);
    if (spec.use_default_actions) await upsertDefaultActionSpecs(manager, spec.id, defaultActionSpecs(spec));
    else await removeUnusedDefaultActionSpecs(manager, spec.id);
    return spec;
  });
}

async function create(dataSource: DataSource, fields: Omit<ServiceSpecFields, 'slug'>): Promise<ServiceSpecRecord> {
  const base = slugify(fields.name, 240, 'specification');
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const taken = await serviceSpecSlugsLike(dataSource.manager, fields.organization_id, base);
    let slug = base;
    for (let n = 1; taken.has((slug = slugCandidate(base, n, 255))); n += 1);
    try {
      return await save(dataSource, { ...fields, slug });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw new HttpError(409, 'SERVICE_SPECIFICATION.SLUG_TAKEN', 'Could not pick a free slug; retry.');
}

export function serviceSpecificationRoutes({ dataSource }: { dataSource: DataSource }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/service_specification',
      operationId: 'createServiceSpecification',
      summary: 'Create a service specification.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:write' },
      body: CreateServiceSpecificationBody,
      responses: { 201: { description: 'The specification', schema: ServiceSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ body, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const owner = ownerOf(body.visible_to);
        access.requireAll('service_specification:write', owner.visibleTo, () =>
          notFound(`Organization ${owner.organizationId} not found.`, 'ORGANIZATION.NOT_FOUND'),
        );
        const fields = withDefaults(body, owner);
        checkAttributes(fields.attributes);
        await checkScopes(dataSource.manager, owner.organizationId, fields.scopes);
        return { status: 201, body: specOut(await create(dataSource, fields)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service_specification/{id}',
      operationId: 'getServiceSpecification',
      summary: 'Read a service specification.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:read' },
      params: UuidParams,
      responses: { 200: { description: 'The specification', schema: ServiceSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const access = await loadAccess(dataSource, auth);
        return { status: 200, body: specOut(await visibleSpec(dataSource, access, params.id)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service_specification',
      operationId: 'listServiceSpecifications',
      summary: "List service specifications visible at an NRN (default: all of the caller's organization).",
      tags: ['service specifications'],
      access: { permission: 'service_specification:read' },
      query: ListServiceSpecificationsQuery,
      responses: { 200: { description: 'A page of specifications', schema: Paged(ServiceSpecification) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const nrn = query.nrn === undefined ? undefined : parseNrn(canonicalNrn(query.nrn)!)!;
        const org = nrn ? nrn[0]! : String(access.caller.organizationId);
        const orgNotFound = () => notFound(`Organization ${org} not found.`, 'ORGANIZATION.NOT_FOUND');
        if (org === '*') throw new HttpError(400, 'bad_request', 'nrn must name an organization by id.');
        if (!access.inOrganization(org)) throw orgNotFound();
        if (query.nrn === undefined) access.require('service_specification:read', organizationNrn(org), orgNotFound);
        else if (!access.canSee('service_specification:read', [canonicalNrn(query.nrn)!])) {
          throw new HttpError(403, 'forbidden', `You need the service_specification:read permission at ${query.nrn}.`);
        }
        const page = await listServiceSpecs(dataSource.manager, {
          organizationId: Number(org),
          visibleAt: nrn && containingNrns(nrn),
          type: query.type,
          name: query.name,
          slug: query.slug,
          offset: query.offset,
          limit: query.limit,
        });
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map(specOut) },
        };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/service_specification/{id}',
      operationId: 'updateServiceSpecification',
      summary: 'Update a service specification; package_id cannot change while an instance is bound to a package revision.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:write' },
      params: UuidParams,
      body: UpdateServiceSpecificationBody,
      responses: { 200: { description: 'The specification', schema: ServiceSpecification } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, body, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const spec = await visibleSpec(dataSource, access, params.id, true);
        let visibleTo = spec.visible_to;
        if (body.visible_to) {
          const owner = ownerOf(body.visible_to);
          if (owner.organizationId !== spec.organization_id) {
            throw new HttpError(
              400,
              'SERVICE_SPECIFICATION.INVALID_VISIBILITY',
              'visible_to cannot move a specification to another organization.',
            );
          }
          access.requireAll('service_specification:write', owner.visibleTo, specNotFound(params.id));
          visibleTo = owner.visibleTo;
        }
        const { visible_to: _v, selectors, ...rest } = body;
        const fields: ServiceSpecFields = {
          ...spec,
          ...rest,
          visible_to: visibleTo,
          selectors: selectors ? { ...spec.selectors, ...selectors } : spec.selectors,
        };
        if (body.attributes) checkAttributes(fields.attributes);
        if (body.scopes) await checkScopes(dataSource.manager, spec.organization_id, fields.scopes);
        if (body.package_id !== undefined && body.package_id !== spec.package_id) {
          const { bound } = await serviceCounts(dataSource.manager, spec.id);
          if (bound > 0) {
            throw new HttpError(
              409,
              'SERVICE_SPECIFICATION.PACKAGE_BOUND',
              `package_id cannot change: ${bound} instance(s) are bound to a package revision.`,
            );
          }
        }
        return { status: 200, body: specOut(await save(dataSource, fields, spec.id)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/service_specification/{id}',
      operationId: 'deleteServiceSpecification',
      summary: 'Delete a service specification that has no services.',
      tags: ['service specifications'],
      access: { permission: 'service_specification:write' },
      params: UuidParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const spec = await visibleSpec(dataSource, access, params.id, true);
        const { services } = await serviceCounts(dataSource.manager, spec.id);
        if (services > 0) throw new HttpError(409, 'SERVICE_SPECIFICATION.IN_USE', `${services} service(s) use this specification.`);
        try {
          await deleteServiceSpec(dataSource.manager, spec.id);
        } catch (error) {
          // A service created since the count: the foreign key refuses.
          if ((error as { code?: unknown }).code === '23503')
            throw new HttpError(409, 'SERVICE_SPECIFICATION.IN_USE', 'Services use this specification.');
          throw error;
        }
        return { status: 204 };
      },
    }),
  ];
}
