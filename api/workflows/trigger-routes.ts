/** GET /workflows/triggers: trigger bindings across aliases. */
import { Type } from '@sinclair/typebox';
import type { TriggerBindingEntity } from '../../db/entities/trigger-binding';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { iso } from '../http/iso-date';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { WorkflowDeps } from './deps';
import { triggerStateJson } from './serialize';

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('live'),
  Type.Literal('failed'),
  Type.Literal('inactive'),
  Type.Literal('active'),
]);

/** Temporal reads of `includeNextRun` in flight at once. */
const NEXT_RUN_READS_AT_ONCE = 8;
/** Temporal reads of `includeNextRun` per request at most, so one list cannot send thousands (docs/limits.md). */
export const NEXT_RUN_READS_MAX = 100;

/** The next run of each live binding whose registrar knows one (Temporal's answer; a failed read leaves the binding out). */
export async function nextRunsOf(deps: WorkflowDeps, rows: TriggerBindingEntity[]): Promise<Map<TriggerBindingEntity, Date>> {
  const found = new Map<TriggerBindingEntity, Date>();
  const pending = rows
    .filter((row) => row.status === 'live' && deps.registrars[row.pluginType]?.nextRun !== undefined)
    .slice(0, NEXT_RUN_READS_MAX);
  const readNext = async (): Promise<void> => {
    for (let row = pending.shift(); row; row = pending.shift()) {
      try {
        const next = await deps.registrars[row.pluginType].nextRun!({ scheduleId: row.scheduleId ?? undefined });
        if (next) found.set(row, next);
      } catch {
        // Temporal unreachable, or the schedule gone: the binding is listed without a next run.
      }
    }
  };
  await Promise.all(Array.from({ length: NEXT_RUN_READS_AT_ONCE }, readNext));
  return found;
}

export function triggerRoutes(deps: WorkflowDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/triggers',
      operationId: 'listWorkflowTriggers',
      summary: 'List trigger bindings across aliases',
      tags: ['Workflow triggers'],
      access: { permission: 'workflow:read', on: 'organization' },
      description: `With \`includeNextRun=true\`, each live binding of a kind that schedules runs (cron) carries \`nextRunAt\`, as Temporal's schedule says: one Temporal read per such binding, ${NEXT_RUN_READS_AT_ONCE} at a time and ${NEXT_RUN_READS_MAX} at most (the bindings beyond them, and one Temporal does not answer for, are listed without it).`,
      query: Type.Object({
        workflowId: Type.Optional(Type.String({ minLength: 1 })),
        status: Type.Optional(Status),
        includeNextRun: Type.Optional(Type.Boolean({ default: false })),
      }),
      responses: {
        200: {
          description: 'Bindings',
          schema: Type.Object({
            data: Type.Array(
              Type.Object({
                triggerId: Type.String(),
                workflowId: Type.String(),
                aliasName: Type.String(),
                pluginType: Type.String(),
                revision: Type.Integer(),
                status: Type.String(),
                runtimeMetadata: Type.Record(Type.String(), Type.Unknown()),
                nextRunAt: Type.Optional(
                  Type.String({ format: 'date-time', description: 'with includeNextRun: when the schedule starts its next run' }),
                ),
              }),
            ),
          }),
        },
      },
      async handler({ query, auth }) {
        let workflowId: string | undefined;
        if (query.workflowId !== undefined) {
          const workflow = await new WorkflowRepository(deps.dataSource.manager).findByRef(auth.organizationId, query.workflowId);
          if (!workflow) return { status: 200, body: { data: [] } };
          workflowId = workflow.id;
        }
        // `active` is the engine reference's spelling of live.
        const status = query.status === 'active' ? 'live' : query.status;
        const rows = await new TriggerBindingRepository(deps.dataSource.manager).listInOrganization(auth.organizationId, {
          workflowId,
          status,
        });
        const nextRuns = query.includeNextRun ? await nextRunsOf(deps, rows) : new Map<TriggerBindingEntity, Date>();
        return {
          status: 200,
          body: {
            data: rows.map((row) => {
              const state = triggerStateJson(row, deps.publicBaseUrl);
              const nextRun = nextRuns.get(row);
              return {
                triggerId: row.triggerId,
                workflowId: row.workflowId,
                aliasName: row.aliasName,
                revision: row.revision,
                ...state,
                ...(nextRun ? { nextRunAt: iso(nextRun) } : {}),
              };
            }),
          },
        };
      },
    }),
  ];
}
