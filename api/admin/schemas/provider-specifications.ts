import { Type } from '@sinclair/typebox';
import { PROVIDER_CATEGORY_SLUGS } from '../../../db/migrations/1763710000002-specifications';
import { DateTime, NrnString, PagingQuery, Uuid } from './common';

const JsonObject = Type.Object({}, { additionalProperties: true });
const Category = Type.Union(PROVIDER_CATEGORY_SLUGS.map((slug) => Type.Literal(slug)));

const writable = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  schema: JsonObject,
  visible_to: Type.Array(NrnString, { minItems: 1, maxItems: 50 }),
  icon: Type.Optional(Type.String({ maxLength: 2048 })),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  allow_dimensions: Type.Optional(Type.Boolean()),
  default_dimensions: Type.Optional(
    Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ maxLength: 100 }), { maxProperties: 20 }),
  ),
  category: Type.Optional(Category),
};

export const CreateProviderSpecificationBody = Type.Object(writable, { additionalProperties: false });
export const UpdateProviderSpecificationBody = Type.Object(
  {
    ...writable,
    name: Type.Optional(writable.name),
    schema: Type.Optional(writable.schema),
    visible_to: Type.Optional(writable.visible_to),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ProviderSpecification = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    icon: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    visible_to: Type.Optional(Type.Array(Type.String())),
    schema: JsonObject,
    allow_dimensions: Type.Boolean(),
    default_dimensions: Type.Optional(JsonObject),
    tags: Type.Optional(Type.Array(Type.Object({ key: Type.String(), value: Type.String(), id: Uuid }, { additionalProperties: false }))),
    categories: Type.Optional(Type.Array(Uuid)),
    dependencies: Type.Optional(Type.Array(Uuid)),
    organization_id: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);

export const ListProviderSpecificationsQuery = Type.Object({
  category: Type.Optional(Category),
  slug: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  ...PagingQuery,
});
