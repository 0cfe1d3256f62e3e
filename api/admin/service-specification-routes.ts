/** Service specifications: create, read, list with visibility, update, delete. */
import type { DataSource } from 'typeorm';
import { forbidden, badRequest } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { isUniqueViolation } from '../../db/sql';
import type { ServiceSpecificationEntity } from '../../db/entities/service-specification';
import { ActionSpecificationRepository } from '../../db/repositories/action-specification-repository';
import { ServiceRepository } from '../../db/repositories/service-repository';
import { ServiceSpecificationRepository, type ServiceSpecificationFields } from '../../db/repositories/service-specification-repository';
import type { AuditTrail } from '../audit/trail';
import { loadAccess, type Access } from '../access/access';
import type { AdminDeps } from './deps';
import { canonicalNrn, containingNrns, organizationNrn, parseNrn } from '../access/nrn';
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
import {
  organizationNotFound,
  serviceSpecificationNotFound,
  slugUnavailable,
  specificationMovesOrganization,
  specificationPackageBound,
  specificationInUse,
} from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "the specification's visibility list (visible_to), or the organization the query names";

export function specOut(s: ServiceSpecificationEntity) {
  return {
    id: s.id,
    name: s.name,
    slug: s.slug,
    visible_to: s.visibleTo,
    attributes: s.attributes,
    selectors: s.selectors,
    type: s.type,
    dimensions: s.dimensions,
    assignable_to: s.assignableTo,
    use_default_actions: s.useDefaultActions,
    use_default_naming: s.useDefaultNaming,
    scopes: s.scopes,
    package_id: s.packageId,
    created_at: isoDate(s.createdAt),
    updated_at: isoDate(s.updatedAt),
  };
}

/** The specification, if the caller may see it (404 from another organization, 403 without the permission). */
export async function visibleSpec(dataSource: DataSource, access: Access, id: string, write = false): Promise<ServiceSpecificationEntity> {
  const spec = await ServiceSpecificationRepository.of(dataSource.manager).findOneBy({ id });
  if (!spec || !access.inOrganization(spec.organizationId)) throw serviceSpecificationNotFound(id);
  if (write) access.requireAll('service_specification:write', spec.visibleTo, () => serviceSpecificationNotFound(id));
  else if (!access.canSee('service_specification:read', spec.visibleTo)) {
    throw forbidden(`You need the service_specification:read permission where specification ${id} is visible.`);
  }
  return spec;
}

/** Writes the specification and keeps its default action specifications in step, in one transaction with its audit event. */
async function save(
  dataSource: DataSource,
  fields: ServiceSpecificationFields,
  audit: AuditTrail,
  details: Record<string, unknown>,
  id?: string,
): Promise<ServiceSpecificationEntity> {
  return dataSource.transaction(async (manager) => {
    const specs = ServiceSpecificationRepository.of(manager);
    const actionSpecs = ActionSpecificationRepository.of(manager);
    const spec = id === undefined ? await specs.insertSpecification(fields) : await specs.updateSpecification(id, fields);
    if (!spec) throw serviceSpecificationNotFound(id!);
    if (spec.useDefaultActions) await actionSpecs.upsertDefaults(spec.id, defaultActionSpecs(spec));
    else await actionSpecs.removeUnusedDefaults(spec.id);
    await audit.record(manager, {
      organizationId: String(spec.organizationId),
      nrn: organizationNrn(spec.organizationId),
      id: spec.id,
      details: { ...details, name: spec.name, slug: spec.slug, visibleTo: spec.visibleTo },
    });
    return spec;
  });
}

async function create(
  dataSource: DataSource,
  fields: Omit<ServiceSpecificationFields, 'slug'>,
  audit: AuditTrail,
): Promise<ServiceSpecificationEntity> {
  const base = slugify(fields.name, 240, 'specification');
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const taken = await ServiceSpecificationRepository.of(dataSource.manager).slugsLike(fields.organizationId, base);
    let slug = base;
    for (let n = 1; taken.has((slug = slugCandidate(base, n, 255))); n += 1);
    try {
      return await save(dataSource, { ...fields, slug }, audit, {});
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw slugUnavailable('SERVICE_SPECIFICATION');
}

export function serviceSpecificationRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/service_specification',
      operationId: 'createServiceSpecification',
      summary: 'Create a service specification.',
      tags: ['service specifications'],
      access: {
        permission: 'service_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'service_specification.create' },
      body: CreateServiceSpecificationBody,
      responses: { 201: { description: 'The specification', schema: ServiceSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const owner = ownerOf(body.visible_to);
        access.requireAll('service_specification:write', owner.visibleTo, () => organizationNotFound(owner.organizationId));
        const fields = withDefaults(body, owner);
        checkAttributes(fields.attributes);
        await checkScopes(dataSource.manager, owner.organizationId, fields.scopes);
        return { status: 201, body: specOut(await create(dataSource, fields, audit)) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service_specification/{id}',
      operationId: 'getServiceSpecification',
      summary: 'Read a service specification.',
      tags: ['service specifications'],
      access: {
        permission: 'service_specification:read',
        inHandler: CHECKED_IN_HANDLER,
      },
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
      access: {
        permission: 'service_specification:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      query: ListServiceSpecificationsQuery,
      responses: { 200: { description: 'A page of specifications', schema: Paged(ServiceSpecification) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const nrn = query.nrn === undefined ? undefined : parseNrn(canonicalNrn(query.nrn)!)!;
        const org = nrn ? nrn[0]! : String(access.caller.organizationId);
        const orgNotFound = () => organizationNotFound(org);
        if (org === '*') throw badRequest('nrn must name an organization by id.');
        if (!access.inOrganization(org)) throw orgNotFound();
        if (query.nrn === undefined) access.require('service_specification:read', organizationNrn(org), orgNotFound);
        else if (!access.canSee('service_specification:read', [canonicalNrn(query.nrn)!])) {
          throw forbidden(`You need the service_specification:read permission at ${query.nrn}.`);
        }
        const page = await ServiceSpecificationRepository.of(dataSource.manager).page({
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
      access: {
        permission: 'service_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'service_specification.update' },
      params: UuidParams,
      body: UpdateServiceSpecificationBody,
      responses: { 200: { description: 'The specification', schema: ServiceSpecification } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const spec = await visibleSpec(dataSource, access, params.id, true);
        let visibleTo = spec.visibleTo;
        if (body.visible_to) {
          const owner = ownerOf(body.visible_to);
          if (owner.organizationId !== spec.organizationId) {
            throw specificationMovesOrganization('SERVICE_SPECIFICATION.INVALID_VISIBILITY');
          }
          access.requireAll('service_specification:write', owner.visibleTo, () => serviceSpecificationNotFound(params.id));
          visibleTo = owner.visibleTo;
        }
        const fields: ServiceSpecificationFields = {
          organizationId: spec.organizationId,
          name: body.name ?? spec.name,
          slug: spec.slug,
          visibleTo,
          attributes: body.attributes ?? spec.attributes,
          selectors: body.selectors ? { ...spec.selectors, ...body.selectors } : spec.selectors,
          type: body.type ?? spec.type,
          dimensions: body.dimensions ?? spec.dimensions,
          assignableTo: body.assignable_to ?? spec.assignableTo,
          useDefaultActions: body.use_default_actions ?? spec.useDefaultActions,
          useDefaultNaming: body.use_default_naming ?? spec.useDefaultNaming,
          scopes: body.scopes ?? spec.scopes,
          packageId: body.package_id === undefined ? spec.packageId : body.package_id,
        };
        if (body.attributes) checkAttributes(fields.attributes);
        if (body.scopes) await checkScopes(dataSource.manager, spec.organizationId, fields.scopes);
        if (body.package_id !== undefined && body.package_id !== spec.packageId) {
          const { bound } = await ServiceRepository.of(dataSource.manager).countsOfSpecification(spec.id);
          if (bound > 0) {
            throw specificationPackageBound(bound);
          }
        }
        return { status: 200, body: specOut(await save(dataSource, fields, audit, { changed: Object.keys(body) }, spec.id)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/service_specification/{id}',
      operationId: 'deleteServiceSpecification',
      summary: 'Delete a service specification that has no services.',
      tags: ['service specifications'],
      access: {
        permission: 'service_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'service_specification.delete' },
      params: UuidParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const spec = await visibleSpec(dataSource, access, params.id, true);
        const { services } = await ServiceRepository.of(dataSource.manager).countsOfSpecification(spec.id);
        if (services > 0) throw specificationInUse(services);
        try {
          await dataSource.transaction(async (manager) => {
            await ServiceSpecificationRepository.of(manager).delete({ id: spec.id });
            await audit.record(manager, {
              organizationId: String(spec.organizationId),
              nrn: organizationNrn(spec.organizationId),
              id: spec.id,
              details: { name: spec.name, slug: spec.slug },
            });
          });
        } catch (error) {
          // A service created since the count: the foreign key refuses.
          if ((error as { code?: unknown }).code === '23503') throw specificationInUse();
          throw error;
        }
        return { status: 204 };
      },
    }),
  ];
}
