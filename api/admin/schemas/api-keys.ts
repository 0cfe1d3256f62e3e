/** API keys (`/api_key`) and their exchange (`POST /token`), in the shapes of the compatible platform's clients. */
import { Type } from '@sinclair/typebox';
import { GrantItem } from './grants';
import { DateTime } from './common';

export const MAX_API_KEY_GRANTS = 100;
/** A key value is 56 characters; anything much longer is not one (and is never looked up). */
export const MAX_API_KEY_LENGTH = 200;

const Name = Type.String({ minLength: 1, maxLength: 100 });
const Tags = Type.Array(
  Type.Object(
    { key: Type.String({ minLength: 1, maxLength: 100 }), value: Type.String({ maxLength: 255 }) },
    { additionalProperties: false },
  ),
  { maxItems: 20 },
);
const Grants = Type.Array(GrantItem, { minItems: 1, maxItems: MAX_API_KEY_GRANTS });

export const CreateApiKeyBody = Type.Object(
  {
    name: Name,
    grants: Grants,
    tags: Type.Optional(Tags),
    expires_at: Type.Optional(
      Type.String({ format: 'date-time', description: 'Default: API_KEY_DEFAULT_DAYS from now; at most API_KEY_MAX_DAYS.' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateApiKeyBody = Type.Object(
  { name: Type.Optional(Name), grants: Type.Optional(Grants), tags: Type.Optional(Tags) },
  { additionalProperties: false, minProperties: 1 },
);

export const ApiKey = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    masked_api_key: Type.String({ description: 'The public start of the key; the value itself is shown only once.' }),
    grants: Type.Array(
      Type.Object({ nrn: Type.String(), role_id: Type.Integer(), role_slug: Type.String() }, { additionalProperties: false }),
    ),
    tags: Tags,
    owner_id: Type.Integer(),
    last_used_at: Type.Union([DateTime, Type.Null()]),
    expires_at: DateTime,
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);

export const CreatedApiKey = Type.Object(
  { ...ApiKey.properties, api_key: Type.String({ description: 'The key itself: shown in this answer only, never again.' }) },
  { additionalProperties: false },
);

export const TokenBody = Type.Object(
  {
    apikey: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_API_KEY_LENGTH })),
    api_key: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_API_KEY_LENGTH })),
  },
  {
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    description: 'The key, as `apikey` or `api_key` (clients send either).',
  },
);

export const TokenAnswer = Type.Object(
  {
    access_token: Type.String(),
    refresh_token: Type.Null({ description: 'Always null: a client exchanges its key again when the token expires.' }),
    token_type: Type.Literal('Bearer'),
    organization_id: Type.Integer(),
    expires_in: Type.Integer({ description: 'Seconds the access token works.' }),
  },
  { additionalProperties: false },
);
