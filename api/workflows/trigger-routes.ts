/** GET /workflows/triggers: trigger bindings across aliases. */
import { Type } from '@sinclair/typebox';
import { TriggerBindingRepository } from '../../db/repositories/trigger-binding-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { defineRoute, type RouteDefinition } from '../http/route';
import { authorizeInOrganization } from './authorize';
import type { WorkflowDeps } from './deps';
import { triggerStateJson } from './serialize';

const Status = Type.Union([
  Type.Literal('pending'),
  Type.Literal('live'),
  Type.Literal('failed'),
  Type.Literal('inactive'),
  Type.Literal('active'),
]);

export function triggerRoutes(deps: WorkflowDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/triggers',
      operationId: 'listWorkflowTriggers',
      summary: 'List trigger bindings across aliases',
      tags: ['Workflow triggers'],
      access: { permission: 'workflow:read' },
      query: Type.Object({ workflowId: Type.Optional(Type.String({ minLength: 1 })), status: Type.Optional(Status) }),
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
              }),
            ),
          }),
        },
      },
      async handler({ query, auth, permission }) {
        // Listing needs the permission on the whole organization (docs/security.md, "Permissions").
        await authorizeInOrganization(deps.dataSource, auth, permission);
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
        return {
          status: 200,
          body: {
            data: rows.map((row) => {
              const state = triggerStateJson(row, deps.publicBaseUrl);
              return { triggerId: row.triggerId, workflowId: row.workflowId, aliasName: row.aliasName, revision: row.revision, ...state };
            }),
          },
        };
      },
    }),
  ];
}
