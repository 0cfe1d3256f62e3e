/** Schemas of the audit trail's read route. */
import { Type } from '@sinclair/typebox';
import { NRN_MAX_LENGTH, NRN_PATTERN } from '../access/nrn';

export const DEFAULT_AUDIT_PAGE = 50;
export const MAX_AUDIT_PAGE = 200;

export const AuditQuery = Type.Object(
  {
    nrn: Type.Optional(
      Type.String({ pattern: NRN_PATTERN, maxLength: NRN_MAX_LENGTH, description: 'Events whose target NRN is this one or beneath it.' }),
    ),
    action: Type.Optional(Type.String({ pattern: '^[a-z_]+(\\.[a-z_]+)+$', maxLength: 100, description: 'e.g. grant.create' })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The actor id: a user id, or a webhook trigger.' })),
    targetId: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Events at or after this instant.' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Events before this instant.' })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The nextCursor of the previous page.' })),
    limit: Type.Integer({ minimum: 1, maximum: MAX_AUDIT_PAGE, default: DEFAULT_AUDIT_PAGE }),
  },
  { additionalProperties: false },
);

export const AuditEvent = Type.Object(
  {
    id: Type.String(),
    organizationId: Type.String(),
    occurredAt: Type.String({ format: 'date-time' }),
    actor: Type.Object({ kind: Type.String(), id: Type.String() }),
    action: Type.String(),
    target: Type.Object({ nrn: Type.Union([Type.String(), Type.Null()]), id: Type.Union([Type.String(), Type.Null()]) }),
    requestId: Type.String(),
    clientRequestId: Type.Union([Type.String(), Type.Null()]),
    clientAddress: Type.Union([Type.String(), Type.Null()]),
    replica: Type.String(),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { additionalProperties: false },
);

export const AuditPage = Type.Object(
  { data: Type.Array(AuditEvent), nextCursor: Type.Union([Type.String(), Type.Null()]) },
  { additionalProperties: false },
);
