/**
 * Provider specifications: settings schemas of integrations (clouds,
 * orchestrators, repositories…). Global ones (organization_id null) ship with
 * the platform and are read-only here.
 */
import type { Static } from '@sinclair/typebox';
import type { DataSource, EntityManager } from 'typeorm';
import { forbidden } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { isUniqueViolation } from '../../db/sql';
import type { ProviderSpecificationEntity } from '../../db/entities/provider-specification';
import { ProviderCategoryRepository } from '../../db/repositories/provider-category-repository';
import { ProviderSpecificationRepository, type ProviderSpecificationFields } from '../../db/repositories/provider-specification-repository';
import { loadAccess, type Access } from '../access/access';
import { organizationNrn } from '../access/nrn';
import type { AuditTrail } from '../audit/trail';
import type { AdminDeps } from './deps';
import { ADMIN_ERRORS, Paged, UuidParams } from './schemas/common';
import {
  CreateProviderSpecificationBody,
  ListProviderSpecificationsQuery,
  ProviderSpecification,
  UpdateProviderSpecificationBody,
} from './schemas/provider-specifications';
import { iso } from '../http/iso-date';
import { ownerOf } from './service-specification-rules';
import { slugCandidate, slugify } from './slug';
import { compileUserSchema } from './user-schema';
import { organizationNotFound, providerSpecificationNotFound, slugUnavailable, specificationMovesOrganization } from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "the specification's visibility list (visible_to); global ones are read-only";

const INVALID_VISIBILITY = 'PROVIDER_SPECIFICATION.INVALID_VISIBILITY';

const providerOut = (p: ProviderSpecificationEntity) => ({
  id: p.id,
  name: p.name,
  slug: p.slug,
  ...(p.icon === null ? {} : { icon: p.icon }),
  ...(p.description === null ? {} : { description: p.description }),
  visible_to: p.visibleTo,
  schema: p.schema,
  allow_dimensions: p.allowDimensions,
  default_dimensions: p.defaultDimensions,
  tags: p.tags,
  categories: p.categories,
  dependencies: p.dependencies,
  organization_id: p.organizationId,
  created_at: iso(p.createdAt),
  updated_at: iso(p.updatedAt),
});

async function visibleProvider(dataSource: DataSource, access: Access, id: string, write = false): Promise<ProviderSpecificationEntity> {
  const spec = await ProviderSpecificationRepository.of(dataSource.manager).findOneBy({ id });
  if (!spec) throw providerSpecificationNotFound(id);
  if (spec.organizationId === null) {
    access.requireSomewhere('provider_specification:read', access.caller.organizationId, () => providerSpecificationNotFound(id));
    if (write) throw forbidden('Global provider specifications are managed by the platform.');
    return spec;
  }
  if (!access.inOrganization(spec.organizationId)) throw providerSpecificationNotFound(id);
  if (write) access.requireAll('provider_specification:write', spec.visibleTo, () => providerSpecificationNotFound(id));
  else if (!access.canSee('provider_specification:read', spec.visibleTo))
    throw forbidden(`You need the provider_specification:read permission where ${id} is visible.`);
  return spec;
}

async function categoriesFor(dataSource: DataSource, slug: string | undefined, current: string[]): Promise<string[]> {
  return slug === undefined ? current : ProviderCategoryRepository.of(dataSource.manager).idsOf(slug);
}

type Body = Static<typeof UpdateProviderSpecificationBody>;

/** Saves with a slug generated from the name (global uniqueness; a lost race picks the next one). */
async function saveNew(
  dataSource: DataSource,
  fields: Omit<ProviderSpecificationFields, 'slug'>,
  audit: AuditTrail,
): Promise<ProviderSpecificationEntity> {
  const base = slugify(fields.name, 240, 'provider');
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const taken = await ProviderSpecificationRepository.of(dataSource.manager).slugsLike(base);
    let slug = base;
    for (let n = 1; taken.has((slug = slugCandidate(base, n, 255))); n += 1);
    try {
      return await dataSource.transaction(async (manager) => {
        const spec = await ProviderSpecificationRepository.of(manager).insertSpecification({ ...fields, slug });
        await recordSpec(manager, audit, spec);
        return spec;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
    }
  }
  throw slugUnavailable('PROVIDER_SPECIFICATION');
}

/** A provider specification's write in the audit trail (an organization's: global ones are not written through the API). */
function recordSpec(manager: EntityManager, audit: AuditTrail, spec: ProviderSpecificationEntity, details: Record<string, unknown> = {}) {
  const organizationId = String(spec.organizationId);
  return audit.record(manager, {
    organizationId,
    nrn: organizationNrn(organizationId),
    id: spec.id,
    details: { ...details, name: spec.name, slug: spec.slug, visibleTo: spec.visibleTo },
  });
}

function checkSchema(body: Body): void {
  if (body.schema !== undefined) compileUserSchema(body.schema, 'provider', '/schema');
}

export function providerSpecificationRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/provider_specification',
      operationId: 'createProviderSpecification',
      summary: 'Create a provider specification of an organization.',
      tags: ['provider specifications'],
      access: {
        permission: 'provider_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'provider_specification.create' },
      body: CreateProviderSpecificationBody,
      responses: { 201: { description: 'The provider specification', schema: ProviderSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const owner = ownerOf(body.visible_to, INVALID_VISIBILITY);
        access.requireAll('provider_specification:write', owner.visibleTo, () => organizationNotFound(owner.organizationId));
        checkSchema(body);
        const spec = await saveNew(
          dataSource,
          {
            organizationId: owner.organizationId,
            name: body.name,
            icon: body.icon ?? null,
            description: body.description ?? null,
            visibleTo: owner.visibleTo,
            schema: body.schema,
            allowDimensions: body.allow_dimensions ?? false,
            defaultDimensions: body.default_dimensions ?? {},
            categories: await categoriesFor(dataSource, body.category, []),
          },
          audit,
        );
        return { status: 201, body: providerOut(spec) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/provider_specification/{id}',
      operationId: 'getProviderSpecification',
      summary: 'Read a provider specification (global or of an organization).',
      tags: ['provider specifications'],
      access: {
        permission: 'provider_specification:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      params: UuidParams,
      responses: { 200: { description: 'The provider specification', schema: ProviderSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => ({
        status: 200,
        body: providerOut(await visibleProvider(dataSource, await loadAccess(dataSource, auth), params.id)),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/provider_specification',
      operationId: 'listProviderSpecifications',
      summary: "List the global provider specifications and those of the caller's organization.",
      tags: ['provider specifications'],
      access: {
        permission: 'provider_specification:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      query: ListProviderSpecificationsQuery,
      responses: { 200: { description: 'A page of provider specifications', schema: Paged(ProviderSpecification) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const org = access.caller.organizationId;
        access.requireSomewhere('provider_specification:read', org, () => organizationNotFound(org));
        const page = await ProviderSpecificationRepository.of(dataSource.manager).page({ organizationId: org, ...query });
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map(providerOut) },
        };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/provider_specification/{id}',
      operationId: 'updateProviderSpecification',
      summary: 'Update a provider specification of an organization.',
      tags: ['provider specifications'],
      access: {
        permission: 'provider_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'provider_specification.update' },
      params: UuidParams,
      body: UpdateProviderSpecificationBody,
      responses: { 200: { description: 'The provider specification', schema: ProviderSpecification } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const spec = await visibleProvider(dataSource, access, params.id, true);
        let visibleTo = spec.visibleTo;
        if (body.visible_to) {
          const owner = ownerOf(body.visible_to, INVALID_VISIBILITY);
          if (owner.organizationId !== spec.organizationId) throw specificationMovesOrganization(INVALID_VISIBILITY);
          access.requireAll('provider_specification:write', owner.visibleTo, () => providerSpecificationNotFound(params.id));
          visibleTo = owner.visibleTo;
        }
        checkSchema(body);
        const categories = await categoriesFor(dataSource, body.category, spec.categories);
        const updated = await dataSource.transaction(async (manager) => {
          const row = await ProviderSpecificationRepository.of(manager).updateSpecification(spec.id, {
            organizationId: spec.organizationId,
            slug: spec.slug,
            name: body.name ?? spec.name,
            icon: body.icon ?? spec.icon,
            description: body.description ?? spec.description,
            visibleTo,
            schema: body.schema ?? spec.schema,
            allowDimensions: body.allow_dimensions ?? spec.allowDimensions,
            defaultDimensions: body.default_dimensions ?? spec.defaultDimensions,
            categories,
          });
          if (row) await recordSpec(manager, audit, row, { changed: Object.keys(body) });
          return row;
        });
        if (!updated) throw providerSpecificationNotFound(params.id);
        return { status: 200, body: providerOut(updated) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/provider_specification/{id}',
      operationId: 'deleteProviderSpecification',
      summary: 'Delete a provider specification of an organization.',
      tags: ['provider specifications'],
      access: {
        permission: 'provider_specification:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'provider_specification.delete' },
      params: UuidParams,
      responses: { 204: { description: 'Deleted' } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth, audit }) => {
        const spec = await visibleProvider(dataSource, await loadAccess(dataSource, auth), params.id, true);
        await dataSource.transaction(async (manager) => {
          await ProviderSpecificationRepository.of(manager).delete({ id: spec.id });
          await recordSpec(manager, audit, spec);
        });
        return { status: 204 };
      },
    }),
  ];
}
