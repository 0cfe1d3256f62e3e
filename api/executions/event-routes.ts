/**
 * GET /workflows/executions/{id}/events: a Server-Sent Events stream of the
 * execution's step events (started, completed, failed, skipped), its waits
 * (`wait.started`, `wait.ended`) and its end
 * (`execution.completed`, `.failed`, `.cancelled`, `.terminated`), after which
 * the stream closes. Events come from PostgreSQL, so any API replica serves
 * any execution; the event id resumes a stream through `Last-Event-ID`.
 *
 * A stream reads when the process's event hub says its execution has new
 * events (LISTEN/NOTIFY), and on a slow timer besides; it sends a heartbeat
 * comment, ends after EVENTS_STREAM_IDLE_SECONDS without an event, and an
 * organization may hold EVENTS_MAX_STREAMS_PER_ORGANIZATION per replica, one
 * user EVENTS_MAX_STREAMS_PER_USER of them (429 above, with Retry-After; reads
 * that wait for the end take the same slots, see stream-slot.ts). It
 * ends when a re-check of the caller's grants (every
 * EVENTS_ACCESS_CHECK_SECONDS, api/access/access-watch.ts) finds that the caller
 * no longer holds workflow:read on the execution's workflow.
 */
import { PassThrough } from 'node:stream';
import { Type } from '@sinclair/typebox';
import { EVENTS_PAGE, ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { AccessWatch } from '../access/access-watch';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { EVENT_FALLBACK_POLL_MS } from './event-hub';
import { executionNrns } from './live';
import { ExecutionRef } from './schemas';
import { eventData } from './serialize';
import { takeStreamSlot } from './stream-slot';

const tags = ['Workflow executions'];
/** How often a stream proves it is alive. */
const HEARTBEAT_MS = 15_000;

export function eventRoutes(deps: ExecutionDeps): RouteDefinition[] {
  const accessWatch = new AccessWatch(deps.dataSource, deps.limits.streamAccessCheckSeconds * 1000, (organizationId, workflowIds) =>
    executionNrns(deps, organizationId, workflowIds),
  );
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/events',
      operationId: 'streamExecutionEvents',
      summary: 'Follow an execution live (Server-Sent Events)',
      description:
        "Step events and the end event; resumable with the Last-Event-ID header (or the lastEventId query parameter). The stream ends after the end event, and within EVENTS_ACCESS_CHECK_SECONDS once the caller no longer holds workflow:read on the execution's workflow.",
      tags,
      access: { permission: 'workflow:read', on: 'execution' },
      params: ExecutionRef,
      query: Type.Object({ lastEventId: Type.Optional(Type.Integer({ minimum: 0 })) }),
      responses: { 200: { description: 'text/event-stream of events', contentType: 'text/event-stream' } },
      errors: [404, 429],
      handler({ query, auth, permission, ctx, target: { row } }) {
        const { eventHub: hub, limits } = deps;
        const owner = { organizationId: auth.organizationId, userId: auth.userId };
        takeStreamSlot(deps, owner);
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
        let wake: (() => void) | undefined;
        const close = () => {
          if (!open) return;
          open = false;
          clearInterval(heartbeat);
          unfollow();
          unwatch();
          hub.closeStream(owner);
          wake?.();
          stream.end();
        };
        ctx.req.on('close', close);
        // Re-checked against the caller's grants every EVENTS_ACCESS_CHECK_SECONDS; the check that fails ends the stream at once.
        const unwatch = accessWatch.watch(auth, {
          permission,
          target: row.workflowId,
          end: () => {
            if (open) stream.write(`: closed: you no longer hold ${permission} on this execution's workflow\n\n`);
            close();
          },
        });
        const heartbeat = setInterval(() => stream.write(': keep-alive\n\n'), HEARTBEAT_MS);
        // Set by a notification; a read clears it first, so one that lands during the read is not slept through.
        let notified = false;
        const unfollow = hub.follow(row.id, () => {
          notified = true;
          wake?.();
        });
        stream.write('retry: 2000\n\n');

        const events = new ExecutionEventRepository(deps.dataSource.manager);
        /** Resolves on a notification, the fallback poll or the idle deadline, whichever comes first. */
        const nextWake = (idleUntil: number) =>
          new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.min(EVENT_FALLBACK_POLL_MS, Math.max(0, idleUntil - Date.now())));
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        const pump = async () => {
          // Listening before the first read: whatever commits after it is notified.
          await hub.listening();
          let idleUntil = Date.now() + limits.streamIdleSeconds * 1000;
          while (open && !hub.isClosed) {
            notified = false;
            const batch = await events.after(row.id, lastSeq);
            for (const event of batch) {
              // Closed while the read was in flight (a failed access check, the client gone): nothing more is sent.
              if (!open) return;
              stream.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(eventData(row.id, event))}\n\n`);
              lastSeq = event.seq;
              if (event.type.startsWith('execution.')) return close();
            }
            if (batch.length > 0) idleUntil = Date.now() + limits.streamIdleSeconds * 1000;
            else if (Date.now() >= idleUntil) return close();
            // Read again at once only when a page was full or a notification came during the read: any later commit
            // notifies (and a batch that ended the read short at a gap notifies when it commits).
            if (batch.length < EVENTS_PAGE && !notified) await nextWake(idleUntil);
          }
          close();
        };
        pump().catch(() => close());
      },
    }),
  ];
}
