/** Services: instances of a service specification at an NRN. */
import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ServiceEntity } from '../../db/entities/service';
import type { ServiceSpecificationEntity } from '../../db/entities/service-specification';
import { ServiceRepository } from '../../db/repositories/service-repository';
import { ServiceSpecificationRepository } from '../../db/repositories/service-specification-repository';
import { loadAccess, type Access } from '../access/access';
import type { AdminDeps } from './deps';
import { canonicalNrn, isConcrete, isVisibleTo, parseNrn } from '../access/nrn';
import type { Permission } from '../http/permissions';
import { ADMIN_ERRORS, UuidParams } from './schemas/common';
import { CreateServiceBody, Service } from './schemas/services';
import { iso } from '../http/iso-date';
import { slugify } from './slug';
import { compileUserSchema } from './user-schema';
import {
  organizationNotFound,
  serviceNotFound,
  schemaMismatch,
  serviceInvalidDimensions,
  serviceNameRequired,
  serviceInvalidNrn,
  serviceUnknownSpecification,
} from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "the service's entity NRN (named by the body when creating)";

export const serviceOut = (s: ServiceEntity) => ({
  id: s.id,
  name: s.name,
  slug: s.slug,
  specification_id: s.specificationId,
  entity_nrn: s.entityNrn,
  status: s.status,
  attributes: s.attributes,
  dimensions: s.dimensions,
  created_by: s.createdBy,
  created_at: iso(s.createdAt),
  updated_at: iso(s.updatedAt),
});

/** The service, if the caller holds `permission` on its NRN (404 from elsewhere). */
export async function accessibleService(
  dataSource: DataSource,
  access: Access,
  id: string,
  permission: Permission,
): Promise<ServiceEntity> {
  const service = await ServiceRepository.of(dataSource.manager).findOneBy({ id });
  if (!service) throw serviceNotFound(id);
  access.require(permission, service.entityNrn, () => serviceNotFound(id));
  return service;
}

function checkDimensions(spec: ServiceSpecificationEntity, dimensions: Record<string, string>): void {
  for (const [name, value] of Object.entries(dimensions)) {
    const dimension = spec.dimensions[name];
    if (!dimension) throw serviceInvalidDimensions(`dimension "${name}" is not defined by the specification.`);
    if (dimension.values && dimension.values.length > 0 && !dimension.values.includes(value))
      throw serviceInvalidDimensions(`dimension "${name}" does not allow "${value}".`);
  }
  const missing = Object.entries(spec.dimensions).find(([name, d]) => d.required && dimensions[name] === undefined);
  if (missing) throw serviceInvalidDimensions(`dimension "${missing[0]}" is required.`);
}

/** Instance name: given, else (with default naming) the attributes' `name`, else generated. */
function nameFor(spec: ServiceSpecificationEntity, given: string | undefined, attributes: Record<string, unknown>): string {
  if (given !== undefined) return given;
  if (!spec.useDefaultNaming) throw serviceNameRequired(spec.slug);
  const fromSchema = attributes.name;
  if (typeof fromSchema === 'string' && fromSchema.length > 0 && fromSchema.length <= 255) return fromSchema;
  return `${spec.slug.slice(0, 240)}-${randomBytes(3).toString('hex')}`;
}

export function serviceRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/service',
      operationId: 'createService',
      summary: 'Create a service from a specification visible at its NRN; attributes are validated against the specification schema.',
      tags: ['services'],
      access: { permission: 'service:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'service.create' },
      body: CreateServiceBody,
      responses: { 201: { description: 'The service', schema: Service } },
      errors: ADMIN_ERRORS,
      handler: async ({ body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const entityNrn = canonicalNrn(body.entity_nrn)!;
        const nrn = parseNrn(entityNrn)!;
        if (!isConcrete(nrn)) throw serviceInvalidNrn();
        access.require('service:write', entityNrn, () => organizationNotFound(nrn[0] ?? ''));
        const spec = await ServiceSpecificationRepository.of(dataSource.manager).findOneBy({ id: body.specification_id });
        if (!spec || String(spec.organizationId) !== nrn[0] || !isVisibleTo(spec.visibleTo, entityNrn)) {
          throw serviceUnknownSpecification(body.specification_id, entityNrn);
        }
        const attributes = body.attributes ?? {};
        const errors = compileUserSchema(spec.attributes.schema, 'service', '/specification/attributes/schema').validate(attributes);
        if (errors.length > 0) {
          throw schemaMismatch('SERVICE.INVALID_ATTRIBUTES', 'attributes', 'the specification', errors);
        }
        const dimensions = body.dimensions ?? {};
        checkDimensions(spec, dimensions);
        const name = nameFor(spec, body.name, attributes);
        const service = await dataSource.transaction(async (manager) => {
          const row = await ServiceRepository.of(manager).insertService({
            organizationId: spec.organizationId,
            name,
            slug: slugify(name, 255, 'service'),
            specificationId: spec.id,
            entityNrn,
            status: 'active',
            attributes,
            dimensions,
            createdBy: access.caller.subject,
          });
          // Attribute values are the service's data: the event names the service, not its contents.
          await audit.record(manager, {
            organizationId: String(spec.organizationId),
            nrn: entityNrn,
            id: row.id,
            details: { name: row.name, specificationId: spec.id },
          });
          return row;
        });
        return { status: 201, body: serviceOut(service) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/service/{id}',
      operationId: 'getService',
      summary: 'Read a service.',
      tags: ['services'],
      access: { permission: 'service:read', inHandler: CHECKED_IN_HANDLER },
      params: UuidParams,
      responses: { 200: { description: 'The service', schema: Service } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const service = await accessibleService(dataSource, await loadAccess(dataSource, auth), params.id, 'service:read');
        return { status: 200, body: serviceOut(service) };
      },
    }),
  ];
}
