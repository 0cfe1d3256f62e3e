import { Type } from '@sinclair/typebox';
import { DateOnly, DateTime, NrnString, PagingQuery, Uuid } from './common';

const JsonObject = Type.Object({}, { additionalProperties: true });

export const CreateServiceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    specification_id: Uuid,
    entity_nrn: NrnString,
    attributes: Type.Optional(JsonObject),
    dimensions: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 100 }), Type.String({ minLength: 1, maxLength: 100 }), { maxProperties: 20 }),
    ),
  },
  { additionalProperties: false },
);

export const Service = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    slug: Type.String(),
    specification_id: Uuid,
    entity_nrn: Type.String(),
    status: Type.String(),
    attributes: JsonObject,
    dimensions: Type.Record(Type.String(), Type.String()),
    created_by: Type.String(),
    created_at: DateTime,
    updated_at: DateTime,
  },
  { additionalProperties: false },
);

export const ACTION_STATUSES = ['pending_create', 'pending', 'in_progress', 'success', 'failed', 'cancelled'] as const;
export const MESSAGE_LEVELS = ['debug', 'info', 'information', 'warn', 'warning', 'error', 'fatal'] as const;

export const Message = Type.Object(
  {
    level: Type.Optional(
      Type.Union(
        MESSAGE_LEVELS.map((l) => Type.Literal(l)),
        { default: 'info' },
      ),
    ),
    message: Type.String({ maxLength: 10_000 }),
    timestamp: Type.Optional(Type.Number({ minimum: 0, description: 'Milliseconds since the epoch; the server time when omitted.' })),
  },
  { additionalProperties: false },
);

const Status = Type.Union(ACTION_STATUSES.map((s) => Type.Literal(s)));

export const Action = Type.Object(
  {
    id: Uuid,
    name: Type.String({ minLength: 1, maxLength: 255 }),
    slug: Type.String({ minLength: 1, maxLength: 255 }),
    specification_id: Uuid,
    desired_specification_id: Type.Union([Uuid, Type.Null()]),
    messages: Type.Array(Message),
    created_at: DateOnly,
    updated_at: DateOnly,
    status: Status,
    parameters: JsonObject,
    results: JsonObject,
    service_id: Uuid,
    link_id: Type.Union([Uuid, Type.Null()]),
    created_by: Type.String(),
  },
  { additionalProperties: false },
);

export const CreateActionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    specification_id: Uuid,
    parameters: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const UpdateActionBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    desired_specification_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
    messages: Type.Optional(Type.Array(Message, { maxItems: 100, description: 'Appended to the messages of the action.' })),
    status: Type.Optional(Status),
    parameters: Type.Optional(JsonObject),
    results: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);

export const ActionParams = Type.Object({ serviceId: Uuid, id: Uuid });
export const ListActionsQuery = Type.Object(PagingQuery);
