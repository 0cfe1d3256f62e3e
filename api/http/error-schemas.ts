/** Response schemas of the three error dialects (platform-api.md "Errors"). */
import { Type } from '@sinclair/typebox';

export const FieldErrorSchema = Type.Object({
  path: Type.String({ description: 'JSON pointer to the offending value' }),
  message: Type.String(),
});

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'Error type URI, `{base}/<error-name>`' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'Request path' }),
    errors: Type.Optional(Type.Array(FieldErrorSchema)),
  },
  { description: 'RFC 9457 problem details (workflow engine).' },
);

export const ConfigErrorSchema = Type.Object(
  {
    error: Type.String({ description: 'Machine-readable code, e.g. invalid_name, invalid_place, secret_flag_immutable, not_found' }),
    message: Type.String(),
  },
  { description: 'Error body of the secrets and variables endpoints.' },
);

export const AdminErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String({ description: 'Status phrase' }),
    message: Type.String(),
    code: Type.Optional(Type.String({ description: 'Machine-readable code, e.g. bad_request' })),
    errors: Type.Optional(Type.Array(FieldErrorSchema, { description: 'One entry per offending field, on validation failures' })),
  },
  { description: 'Error body of the administration endpoints.', additionalProperties: true },
);
