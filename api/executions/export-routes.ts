/** GET /workflows/executions/{id}/export: the execution as one JSON document, streamed (./export-document.ts). */
import { Readable } from 'node:stream';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { EXPORT_BATCH_ROWS, exportDocument } from './export-document';
import { ExecutionExport, ExecutionRef } from './schemas';

export function exportRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/executions/{id}/export',
      operationId: 'exportExecution',
      summary: 'The execution as one JSON document: record, definition, steps, logs and events',
      description: `For archiving before retention removes the execution, and for the kit to replay it locally (\`platform-workflow run --from-export FILE\`). Any execution may be exported, a running one too (its \`execution.status\` says so). The document is streamed as it is read, ${EXPORT_BATCH_ROWS} rows at a time, so it has no size limit; a read that fails midway ends the response early, and the truncated text does not parse. Sent as an attachment named \`<id>.json\`.`,
      tags: ['Workflow executions'],
      access: { permission: 'workflow:read', on: 'execution' },
      params: ExecutionRef,
      responses: { 200: { description: 'The export document', schema: ExecutionExport } },
      async handler({ target: { row } }) {
        const [workflow, revision] = await Promise.all([
          new WorkflowRepository(deps.dataSource.manager).findOneBy({ organizationId: row.organizationId, id: row.workflowId }),
          new WorkflowRevisionRepository(deps.dataSource.manager).findRevision(row.workflowId, row.revision),
        ]);
        return {
          status: 200,
          headers: {
            'Content-Type': 'application/json; charset=utf-8',
            'Content-Disposition': `attachment; filename="${row.id.replace(/[^A-Za-z0-9_.-]/g, '_')}.json"`,
          },
          body: Readable.from(exportDocument(deps, { row, workflow, revision })),
        };
      },
    }),
  ];
}
