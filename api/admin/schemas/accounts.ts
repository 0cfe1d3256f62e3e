import { Type } from '@sinclair/typebox';
import { SLUG_PATTERN } from '../slug';
import { DateTime, IntegerId, PagingQuery } from './common';

export const ACCOUNT_NAME_MAX = 60;
export const ACCOUNT_SLUG_MAX = 70;

const Tag = Type.Object(
  { key: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: 255 }) },
  { additionalProperties: false },
);

export const MetadataInput = Type.Object(
  {
    key: Type.String({ minLength: 1, maxLength: 100 }),
    value: Type.String({ maxLength: 10_000 }),
    additional_properties: Type.Optional(
      Type.Object(
        {
          schemas: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 50 })),
          tags: Type.Optional(Type.Array(Tag, { maxItems: 100 })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const WritableStatus = Type.Union([Type.Literal('active'), Type.Literal('inactive')], { description: '`deleted` is set only by DELETE.' });

export const CreateAccountBody = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: ACCOUNT_NAME_MAX }),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: ACCOUNT_SLUG_MAX, pattern: SLUG_PATTERN })),
    organization_id: IntegerId,
    status: Type.Optional(WritableStatus),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false },
);

export const UpdateAccountBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: ACCOUNT_NAME_MAX })),
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: ACCOUNT_SLUG_MAX, pattern: SLUG_PATTERN })),
    status: Type.Optional(WritableStatus),
    metadata: Type.Optional(MetadataInput),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const Account = Type.Object({
  id: Type.Integer(),
  name: Type.String({ maxLength: ACCOUNT_NAME_MAX }),
  slug: Type.String({ maxLength: ACCOUNT_SLUG_MAX }),
  organization_id: Type.Integer(),
  status: Type.Union([Type.Literal('active'), Type.Literal('inactive'), Type.Literal('deleted')]),
  deleted_at: Type.Optional(Type.Union([DateTime, Type.Null()])),
  metadata: Type.Optional(
    Type.Object({
      key: Type.String(),
      value: Type.String(),
      additional_properties: Type.Object({
        schemas: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
        tags: Type.Optional(Type.Array(Tag)),
      }),
    }),
  ),
});

export const ListAccountsQuery = Type.Object({ organization_id: Type.String({ pattern: '^[0-9]{1,15}$' }), ...PagingQuery });

export const GetAccountQuery = Type.Object({
  metadata_include: Type.Optional(
    Type.String({ pattern: '^(schemas|tags)(,(schemas|tags))?$', description: 'Comma-separated: schemas, tags' }),
  ),
  show_deleted: Type.Boolean({ default: false }),
});
