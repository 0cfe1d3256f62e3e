import { Type } from '@sinclair/typebox';
import { DateOnly, DateTime, NrnString, PagingQuery, Uuid } from './common';

/**
 * The fixed provider-scope identifiers a service specification may list in
 * `scopes.provider.values` (CLOUD:CATEGORY:TARGET). The first three are
 * nullplatform's public ones; the last three are this platform's web pools on
 * Azure (AKS), Google Cloud (GKE) and Oracle Cloud (OKE).
 */
export const PROVIDER_SCOPE_IDS = [
  'AWS:SERVERLESS:LAMBDA',
  'AWS:WEB_POOL:EC2INSTANCES',
  'AWS:WEB_POOL:EKS',
  'AZURE:WEB_POOL:AKS',
  'GCP:WEB_POOL:GKE',
  'OCI:WEB_POOL:OKE',
] as const;

const SelectorString = Type.String({ minLength: 1, maxLength: 100 });
const JsonObject = Type.Object({}, { additionalProperties: true });

export const Attributes = Type.Object({ schema: JsonObject, values: JsonObject }, { additionalProperties: false });

export const Selectors = Type.Object(
  {
    imported: Type.Optional(Type.Boolean()),
    provider: Type.Optional(SelectorString),
    category: Type.Optional(SelectorString),
    sub_category: Type.Optional(SelectorString),
  },
  { additionalProperties: Type.Union([SelectorString, Type.Number(), Type.Boolean(), Type.Null()]), maxProperties: 50 },
);

const Dimensions = Type.Record(
  Type.String({ minLength: 1, maxLength: 100 }),
  Type.Object(
    { required: Type.Boolean(), values: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })) },
    { additionalProperties: false },
  ),
  { maxProperties: 20 },
);

const Scopes = Type.Object(
  {
    provider: Type.Optional(
      Type.Object(
        {
          values: Type.Array(Type.Union([Type.Union(PROVIDER_SCOPE_IDS.map((id) => Type.Literal(id))), Uuid]), {
            minItems: 1,
            maxItems: 50,
            uniqueItems: true,
            description: `Each item is the uuid of a scope specification of the organization or one of the fixed provider scopes: ${PROVIDER_SCOPE_IDS.join(', ')} (AWS Lambda, AWS EC2 instances, AWS EKS, Azure AKS, Google Cloud GKE, Oracle Cloud OKE).`,
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const SpecType = Type.Union([Type.Literal('dependency'), Type.Literal('scope')]);
const AssignableTo = Type.Union([Type.Literal('any'), Type.Literal('dimension'), Type.Literal('scope')]);

const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  visible_to: Type.Array(NrnString, { minItems: 1, maxItems: 50 }),
  attributes: Type.Optional(Attributes),
  selectors: Type.Optional(Selectors),
  type: Type.Optional(SpecType),
  dimensions: Type.Optional(Dimensions),
  assignable_to: Type.Optional(AssignableTo),
  use_default_actions: Type.Optional(Type.Boolean()),
  use_default_naming: Type.Optional(Type.Boolean()),
  scopes: Type.Optional(Scopes),
  package_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
};

export const CreateServiceSpecificationBody = Type.Object(writable, { additionalProperties: false });

export const UpdateServiceSpecificationBody = Type.Object(
  { ...writable, name: Type.Optional(writable.name), visible_to: Type.Optional(writable.visible_to) },
  { additionalProperties: false, minProperties: 1 },
);

export const ServiceSpecification = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    visible_to: Type.Array(Type.String()),
    attributes: Attributes,
    selectors: Selectors,
    type: SpecType,
    dimensions: Dimensions,
    assignable_to: AssignableTo,
    use_default_actions: Type.Boolean(),
    use_default_naming: Type.Boolean(),
    scopes: Type.Union([Scopes, Type.Null()]),
    package_id: Type.Union([Uuid, Type.Null()]),
    created_at: DateOnly,
    updated_at: DateOnly,
  },
  { additionalProperties: false },
);

export const ListServiceSpecificationsQuery = Type.Object({
  nrn: Type.Optional(NrnString),
  type: Type.Optional(SpecType),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  ...PagingQuery,
});

export const ActionSpecification = Type.Object(
  {
    id: Uuid,
    service_specification_id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    type: Type.Union([Type.Literal('create'), Type.Literal('update'), Type.Literal('delete'), Type.Literal('custom')]),
    parameters: JsonObject,
    results: JsonObject,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);

export const CreateActionSpecificationBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 255 }),
    parameters: Type.Optional(JsonObject),
    results: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);
