/**
 * Small routes mounted only in tests, one per route family, to exercise the
 * shared HTTP machinery (auth, body parsing, validation, error dialects)
 * independently of any product area.
 */
import { Type } from '@sinclair/typebox';
import type { Dialect } from '../../api/http/dialects';
import { defineRoute, withDialect, type RouteDefinition } from '../../api/http/route';

export const FAMILY_PREFIXES = {
  problem: '/workflows/probe',
  config: '/workflows/config/probe',
  admin: '/probe',
} as const;

const ProbeBody = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 20 }), count: Type.Optional(Type.Integer({ minimum: 0 })) },
  { additionalProperties: false },
);

export function probeRoutes(hooks: { onWrite?: (body: unknown) => void; waitFor?: () => Promise<void> } = {}): RouteDefinition[] {
  return Object.entries(FAMILY_PREFIXES).flatMap(([family, prefix]) =>
    withDialect(family as Dialect, [
      defineRoute({
        method: 'post',
        path: prefix,
        operationId: `probeWrite_${family}`,
        summary: 'Test probe: echoes a validated body.',
        tags: ['probe'],
        access: { permission: 'workflow:read' },
        audit: { none: 'test probe: echoes its body, writes nothing' },
        body: ProbeBody,
        bodyFormats: ['json', 'yaml'],
        responses: { 201: { description: 'Echo', schema: ProbeBody } },
        handler: ({ body }) => {
          hooks.onWrite?.(body);
          return { status: 201, body };
        },
      }),
      defineRoute({
        method: 'get',
        path: `${prefix}/{id}`,
        operationId: `probeRead_${family}`,
        summary: 'Test probe: reads by integer id; 999 fails with an internal error.',
        tags: ['probe'],
        access: { permission: 'workflow:read' },
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
        query: Type.Object({ slow: Type.Optional(Type.Boolean()) }),
        responses: { 200: { description: 'Id and caller', schema: Type.Object({ id: Type.Integer(), organizationId: Type.String() }) } },
        handler: async ({ params, query, auth }) => {
          if (params.id === 999) throw new Error('database password is hunter2');
          if (query.slow) await hooks.waitFor?.();
          return { status: 200, body: { id: params.id, organizationId: auth.organizationId } };
        },
      }),
    ]),
  );
}
