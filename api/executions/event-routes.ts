/**
 * GET /workflows/executions/{id}/events: a Server-Sent Events stream of the
 * execution's step events (started, completed, failed, skipped), its waits
 * (`wait.started`, `wait.ended`) and its end
 * (`execution.completed`, `.failed`, `.cancelled`, `.terminated`), after which
 * the stream closes. Events come from PostgreSQL, so any API replica serves
 * any execution; the event id resumes a stream through `Last-Event-ID`.
 */
import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { authorizedExecution } from './live';
import { ExecutionRef } from './schemas';

const tags = ['Workflow executions'];
/** How often the stream looks for new events, and how often it proves it is alive. */
export const EVENT_POLL_MS = 250;
const HEARTBEAT_MS = 15_000;

export function eventRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/events',
      operationId: 'streamExecutionEvents',
      summary: 'Follow an execution live (Server-Sent Events)',
      description:
        'Step events and the end event; resumable with the Last-Event-ID header (or the lastEventId query parameter). The stream ends after the end event.',
      tags,
      access: { permission: 'workflow:read' },
      params: ExecutionRef,
      query: Type.Object({ lastEventId: Type.Optional(Type.Integer({ minimum: 0 })) }),
      responses: { 200: { description: 'text/event-stream of events', contentType: 'text/event-stream' } },
      errors: [404],
      async handler({ params, query, auth, permission, ctx }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        const header = ctx.get('last-event-id');
        // Event ids are the events' positions (0, 1, 2, …): resume right after the last one seen.
        let lastSeq = /^[0-9]{1,9}$/.test(header) ? Number(header) : (query.lastEventId ?? -1);

        const stream = new PassThrough();
        ctx.status = 200;
        ctx.set({
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-cache',
          Connection: 'keep-alive',
          'X-Accel-Buffering': 'no',
        });
        ctx.body = stream;

        let open = true;
        const close = () => {
          if (!open) return;
          open = false;
          clearInterval(heartbeat);
          stream.end();
        };
        ctx.req.on('close', close);
        const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
        stream.write('retry: 2000\n\n');

        const events = new ExecutionEventRepository(deps.dataSource.manager);
        const pump = async () => {
          while (open) {
            const batch = await events.after(row.id, lastSeq);
            for (const event of batch) {
              stream.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ executionId: row.id, ...event.data })}\n\n`);
              lastSeq = event.seq;
              if (event.type.startsWith('execution.')) return close();
            }
            if (batch.length === 0) await new Promise((resolve) => setTimeout(resolve, EVENT_POLL_MS));
          }
        };
        pump().catch(() => close());
      },
    }),
  ];
}
