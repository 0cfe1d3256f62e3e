/** GET /workflows/executions/stats: executions of a window counted by status per hour or day, and the failing workflows. */
import { ExecutionListRepository } from '../../db/repositories/execution-list-repository';
import { iso } from '../http/iso-date';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import {
  EXECUTION_STATS_FAILING_LIMIT,
  EXECUTION_STATS_MAX_WINDOW_HOURS,
  COUNTED_STATUSES,
  ExecutionStats,
  ExecutionStatsQuery,
} from './schemas';
import { statsWindowInvalid } from './errors';

const HOUR_MS = 3_600_000;
const BUCKET_MS = { hour: HOUR_MS, day: 24 * HOUR_MS } as const;

/** The start of the (UTC) bucket holding `date`. */
const bucketStart = (date: Date, bucket: 'hour' | 'day'): Date =>
  new Date(Math.floor(date.getTime() / BUCKET_MS[bucket]) * BUCKET_MS[bucket]);

export function executionStatsRoutes(deps: ExecutionDeps): RouteDefinition[] {
  const executions = new ExecutionListRepository(deps.dataSource.manager);
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions/stats',
      operationId: 'getExecutionStats',
      summary: 'Executions of a window counted by status, per hour or day, and the failing workflows',
      description: `Counts the executions created in [from, to) by their current status, in UTC buckets (\`from\` rounded down to one), with totals, and names the ${EXECUTION_STATS_FAILING_LIMIT} workflows with the most failed ones. At most ${EXECUTION_STATS_MAX_WINDOW_HOURS} hours (400 \`stats-window-invalid\` beyond). Who may read it is who may list executions.`,
      tags: ['Workflow executions'],
      access: { permission: 'workflow:read', on: 'organization' },
      query: ExecutionStatsQuery,
      responses: { 200: { description: 'Counts', schema: ExecutionStats } },
      async handler({ query, auth }) {
        const bucket = query.bucket ?? 'hour';
        const to = query.to !== undefined ? new Date(query.to) : new Date();
        const requested = query.from !== undefined ? new Date(query.from) : new Date(to.getTime() - 24 * HOUR_MS);
        if (requested.getTime() >= to.getTime()) throw statsWindowInvalid('`from` must come before `to`.');
        if (to.getTime() - requested.getTime() > EXECUTION_STATS_MAX_WINDOW_HOURS * HOUR_MS)
          throw statsWindowInvalid(`From \`from\` to \`to\` spans at most ${EXECUTION_STATS_MAX_WINDOW_HOURS} hours.`);
        const from = bucketStart(requested, bucket);
        const { counts, failing } = await executions.countsByBucket(auth.organizationId, {
          from,
          to,
          bucket,
          statuses: COUNTED_STATUSES,
          failingLimit: EXECUTION_STATS_FAILING_LIMIT,
        });
        const totals: Record<string, number> = Object.fromEntries(COUNTED_STATUSES.map((status) => [status, 0]));
        const buckets: Array<{ start: string; counts: Record<string, number> }> = [];
        const byStart = new Map<number, Record<string, number>>();
        for (let start = from.getTime(); start < to.getTime(); start += BUCKET_MS[bucket]) {
          const bucketCounts: Record<string, number> = {};
          byStart.set(start, bucketCounts);
          buckets.push({ start: iso(new Date(start)), counts: bucketCounts });
        }
        for (const row of counts) {
          byStart.get(new Date(row.bucket).getTime())![row.status] = row.count;
          totals[row.status] += row.count;
        }
        return {
          status: 200,
          body: {
            from: iso(from),
            to: iso(to),
            bucket,
            totals,
            buckets,
            failingWorkflows: failing.map((row) => ({
              workflowId: row.workflowId,
              ...(row.workflowKey !== null ? { workflowKey: row.workflowKey } : {}),
              failed: row.failed,
              lastFailedAt: iso(row.lastFailedAt),
            })),
          },
        };
      },
    }),
  ];
}
