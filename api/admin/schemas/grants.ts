import { Type } from '@sinclair/typebox';
import { DateTime, IntegerId, NrnString } from './common';

export const MAX_GRANTS_PER_REQUEST = 100;

export const SlugGrantItem = Type.Object(
  { nrn: NrnString, role_slug: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export const IdGrantItem = Type.Object({ nrn: NrnString, role_id: IntegerId }, { additionalProperties: false });
export const GrantItem = Type.Union([SlugGrantItem, IdGrantItem]);

/**
 * The route validates only the array bounds and that items are objects: each
 * item is then checked against `GrantItem` by the handler, so that a bad item
 * is reported the way the contract reports every failing grant (cause + index).
 */
export const BulkGrantBody = Type.Array(Type.Unknown({ description: 'Either {nrn, role_slug} or {nrn, role_id}; checked item by item.' }), {
  minItems: 1,
  maxItems: MAX_GRANTS_PER_REQUEST,
});

export const Grant = Type.Object(
  {
    id: Type.Integer(),
    nrn: Type.String(),
    user_id: Type.Integer(),
    role_id: Type.Integer(),
    role_slug: Type.Optional(Type.String()),
    status: Type.Union([Type.Literal('active'), Type.Literal('pending')]),
    created_at: Type.Optional(DateTime),
  },
  { additionalProperties: false },
);

export const GrantParams = Type.Object({ id: IntegerId, grantId: IntegerId });

export const Role = Type.Object(
  {
    id: Type.Integer(),
    slug: Type.String(),
    name: Type.String(),
    description: Type.String(),
    permissions: Type.Array(Type.String()),
    assignable_to_user_types: Type.Array(Type.Union([Type.Literal('person'), Type.Literal('service_account')])),
    assignable_by: Type.Array(Type.String()),
    requires_approval: Type.Boolean(),
  },
  { additionalProperties: false },
);

export const User = Type.Object(
  {
    id: Type.Integer(),
    organization_id: Type.Integer(),
    type: Type.Union([Type.Literal('person'), Type.Literal('service_account')]),
    email: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
    created_at: DateTime,
  },
  { additionalProperties: false },
);

export const CreateUserBody = Type.Object(
  {
    id: Type.Optional(IntegerId),
    organization_id: IntegerId,
    type: Type.Optional(Type.Union([Type.Literal('person'), Type.Literal('service_account')])),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 120 })),
  },
  { additionalProperties: false },
);
