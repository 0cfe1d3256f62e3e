/** GET /audit/events: the organization's audit trail, newest first, filtered, in cursor pages; needs audit:read. */
import { AuditEventRepository } from '../../db/repositories/audit-event-repository';
import { canonicalNrn } from '../access/nrn';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { AuditDeps } from './deps';
import { cursorInvalid } from './errors';
import { AuditPage, AuditQuery } from './schemas';
import { auditEventJson, decodeCursor, encodeCursor } from './serialize';

export function auditEventRoutes(deps: AuditDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/audit/events',
      operationId: 'listAuditEvents',
      summary: 'Read the audit trail of the organization (every write through the API), newest first.',
      description:
        'Filters: nrn (the target NRN or beneath it), action, actor, targetId, from/to (occurredAt). Pages: pass nextCursor as cursor until it is null. Needs audit:read on the organization.',
      tags: ['audit'],
      access: { permission: 'audit:read', on: 'organization' },
      query: AuditQuery,
      responses: { 200: { description: 'A page of audit events', schema: AuditPage } },
      errors: [403, 404],
      async handler({ query, auth }) {
        const beforeId = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
        if (query.cursor !== undefined && beforeId === undefined) throw cursorInvalid();
        const { rows, next } = await new AuditEventRepository(deps.dataSource.manager).page(
          auth.organizationId,
          {
            nrnPrefix: query.nrn === undefined ? undefined : (canonicalNrn(query.nrn) ?? query.nrn),
            action: query.action,
            actorId: query.actor,
            targetId: query.targetId,
            from: query.from === undefined ? undefined : new Date(query.from),
            to: query.to === undefined ? undefined : new Date(query.to),
            beforeId,
          },
          query.limit,
        );
        const nextCursor = next === undefined ? null : encodeCursor(next);
        return { status: 200, body: { data: rows.map(auditEventJson), nextCursor } };
      },
    }),
  ];
}
