/** GET /workflows/executions/{id}/logs: windows by position, newest first, index range scans (no OFFSET). */
import { ExecutionLogRepository } from '../../db/repositories/execution-log-repository';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { ExecutionRef, LogQuery, LogWindow } from './schemas';
import { logEntryJson } from './serialize';

export const DEFAULT_LOG_LIMIT = 200;
export const MAX_LOG_LIMIT = 1000;

export function logRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/logs',
      operationId: 'getExecutionLogs',
      summary: 'One window of log entries, newest window first',
      description:
        'limit defaults to 200 and is clamped to 1000; cursor is the exclusive end index of the window; pass nextCursor to read older entries until it is absent.',
      tags: ['Workflow executions'],
      access: { permission: 'workflow:read', on: 'execution' },
      params: ExecutionRef,
      query: LogQuery,
      responses: { 200: { description: 'A window of log entries, oldest first within the window', schema: LogWindow } },
      async handler({ query, target: { row } }) {
        const limit = Math.min(query.limit ?? DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT);
        const window = await new ExecutionLogRepository(deps.dataSource.manager).window(row.id, {
          limit,
          cursor: query.cursor,
          stepId: query.stepId,
        });
        return {
          status: 200,
          body: {
            data: window.rows.map((log) => logEntryJson(row.id, log)),
            total: window.total,
            limit,
            ...(window.start > 0 ? { nextCursor: window.start } : {}),
          },
        };
      },
    }),
  ];
}
