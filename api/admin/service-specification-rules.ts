/**
 * The rules of a service specification body: defaults, visibility, attribute
 * schema and values, provider scopes, and the default action specifications.
 */
import type { Static } from '@sinclair/typebox';
import type { EntityManager } from 'typeorm';
import type { ServiceSpecificationEntity } from '../../db/entities/service-specification';
import type { ActionSpecificationFields } from '../../db/repositories/action-specification-repository';
import { ServiceSpecificationRepository, type ServiceSpecificationFields } from '../../db/repositories/service-specification-repository';
import { canonicalNrn, parseNrn } from '../access/nrn';
import type { CreateServiceSpecificationBody } from './schemas/service-specifications';
import { PROVIDER_SCOPE_IDS } from './schemas/service-specifications';
import { compileUserSchema } from './user-schema';
import { specificationInvalid } from './errors';

export type CreateBody = Static<typeof CreateServiceSpecificationBody>;

/** Canonical NRNs, all in one concrete organization (the specification's owner). */
export function ownerOf(
  visibleTo: string[],
  code = 'SERVICE_SPECIFICATION.INVALID_VISIBILITY',
): { organizationId: number; visibleTo: string[] } {
  const canonical = [...new Set(visibleTo.map((nrn) => canonicalNrn(nrn)!))];
  const orgs = new Set(canonical.map((nrn) => parseNrn(nrn)![0]));
  const [org] = orgs;
  if (orgs.size !== 1 || org === '*' || org === undefined) {
    throw specificationInvalid(code, 'visible_to must name NRNs of one organization, given by id (not *).');
  }
  return { organizationId: Number(org), visibleTo: canonical };
}

/** Compiles the attribute schema and checks the values against it. */
export function checkAttributes(attributes: ServiceSpecificationFields['attributes']): void {
  const compiled = compileUserSchema(attributes.schema, 'service', '/attributes/schema');
  const errors = compiled.validate(attributes.values).map((e) => ({ ...e, path: `/attributes/values${e.path}` }));
  if (errors.length > 0) {
    throw specificationInvalid(
      'SERVICE_SPECIFICATION.INVALID_ATTRIBUTE_VALUES',
      `attributes.values do not match attributes.schema: ${errors[0].path} ${errors[0].message}`,
      errors,
    );
  }
}

const FIXED_SCOPES: readonly string[] = PROVIDER_SCOPE_IDS;

/** Every uuid in scopes.provider.values must name a scope specification of the organization. */
export async function checkScopes(
  manager: EntityManager,
  organizationId: number,
  scopes: ServiceSpecificationFields['scopes'],
): Promise<void> {
  const uuids = (scopes?.provider?.values ?? []).filter((v) => !FIXED_SCOPES.includes(v));
  const known = await ServiceSpecificationRepository.of(manager).scopeIdsAmong(organizationId, uuids);
  const unknown = uuids.find((id) => !known.has(id));
  if (unknown)
    throw specificationInvalid(
      'SERVICE_SPECIFICATION.UNKNOWN_SCOPE_SPECIFICATION',
      `scopes.provider.values: ${unknown} is not a scope specification of this organization.`,
    );
}

export const DEFAULT_SELECTORS = { imported: false, provider: 'any', category: 'any', sub_category: 'any' } as const;

/** Fields of a new specification with the contract's defaults (slug is set by the caller). */
export function withDefaults(
  body: CreateBody,
  owner: { organizationId: number; visibleTo: string[] },
): Omit<ServiceSpecificationFields, 'slug'> {
  const type = body.type ?? 'dependency';
  return {
    organizationId: owner.organizationId,
    name: body.name,
    visibleTo: owner.visibleTo,
    attributes: body.attributes ?? { schema: {}, values: {} },
    selectors: { ...DEFAULT_SELECTORS, ...body.selectors },
    type,
    dimensions: body.dimensions ?? {},
    assignableTo: body.assignable_to ?? 'any',
    // Scope specifications describe where things run; their lifecycle actions are their own.
    useDefaultActions: body.use_default_actions ?? type !== 'scope',
    useDefaultNaming: body.use_default_naming ?? true,
    scopes: body.scopes ?? null,
    packageId: body.package_id ?? null,
  };
}

const cut = (text: string) => text.slice(0, 255);

/** Create, update and delete actions derived from the attribute schema. */
export function defaultActionSpecs(spec: Pick<ServiceSpecificationEntity, 'name' | 'slug' | 'attributes'>): ActionSpecificationFields[] {
  const schema = spec.attributes.schema;
  const { required: _required, ...optional } = schema;
  const anyResult = { type: 'object' };
  return [
    { type: 'create', name: cut(`Create ${spec.name}`), slug: cut(`create-${spec.slug}`), parameters: schema, results: anyResult },
    // An update may send only what changes.
    { type: 'update', name: cut(`Update ${spec.name}`), slug: cut(`update-${spec.slug}`), parameters: optional, results: anyResult },
    {
      type: 'delete',
      name: cut(`Delete ${spec.name}`),
      slug: cut(`delete-${spec.slug}`),
      parameters: { type: 'object' },
      results: anyResult,
    },
  ];
}
