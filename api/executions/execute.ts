/**
 * POST /workflows/definitions/{id}/execute: resolve the revision, check the
 * inputs, record the execution (the unique index decides idempotency), then
 * start the Temporal workflow. A failed start removes the row again, so a 503
 * leaves nothing half-written.
 */
import { Type } from '@sinclair/typebox';
import { deleteExecution, insertExecution, setTemporalRunId } from '../../db/stores/executions';
import { resolveRunnable } from '../../db/stores/runnable-revision';
import type { ExecutionInput, TriggerInfo } from '../../workflows/engine/runtime/types';
import { EXECUTION_WORKFLOW_TYPE } from '../../workflows/engine/workflow-types';
import { HttpError, validationFailed } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import { workflowNotFound } from '../workflows/errors';
import { WorkflowRef } from '../workflows/schemas';
import type { ExecutionDeps } from './deps';
import { executorUnavailable } from './errors';
import { newExecutionId } from './ids';
import { checkInputs, manualTrigger } from './inputs';
import { ExecuteBody, ExecuteResult, RevisionChoice } from './schemas';

const tags = ['Workflow executions'];

export function executeRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post', path: '/workflows/definitions/{id}/execute', operationId: 'executeWorkflow', summary: 'Start an execution of a workflow revision',
      description: 'alias/revision may come in the body or the query (the body wins); an explicit revision wins over an alias; default alias latest. A repeated idempotencyKey answers 200 with the same execution and deduplicated: true.',
      tags, auth: 'token', params: WorkflowRef, query: Type.Object(RevisionChoice), body: ExecuteBody, bodyOptional: true,
      responses: { 202: { description: 'Started', schema: ExecuteResult }, 200: { description: 'Deduplicated by idempotencyKey', schema: ExecuteResult } },
      errors: [404, 503],
      async handler({ params, query, body, auth }) {
        const request = body ?? {};
        const alias = request.alias ?? query.alias;
        const revision = request.revision ?? query.revision;
        const runnable = await resolveRunnable(deps.dataSource, auth.organizationId, params.id, { alias, revision });
        if (runnable === 'workflow-not-found') throw workflowNotFound(params.id);
        if (runnable === 'alias-not-found') throw new HttpError(404, 'alias-not-found', `Workflow "${params.id}" has no alias "${alias ?? 'latest'}".`);
        if (runnable === 'revision-not-found') throw new HttpError(404, 'revision-not-found', `Workflow "${params.id}" has no revision ${String(revision)}.`);

        const inputs = request.inputs ?? {};
        const trigger = manualTrigger(runnable.definition);
        const errors = trigger ? checkInputs(trigger.inputs, inputs) : [];
        if (errors.length > 0) throw validationFailed(errors, undefined, 'inputs-invalid');

        const triggerInfo: TriggerInfo = { stepId: trigger?.id, source: 'manual', payload: inputs, receivedAt: new Date().toISOString() };
        const namespace = deps.temporal.options.namespace;
        const { row, created } = await insertExecution(deps.dataSource, {
          id: newExecutionId(),
          organizationId: auth.organizationId,
          workflowId: runnable.workflow.id,
          workflowKey: runnable.workflow.key,
          revision: runnable.revision,
          alias: runnable.alias,
          inputs,
          trigger: { ...triggerInfo },
          correlationKey: request.correlationKey ?? null,
          idempotencyKey: request.idempotencyKey ?? null,
          parentExecutionId: null,
          temporalNamespace: namespace,
          createdBy: auth.userId,
        });
        const result = { executionId: row.id, workflowId: row.workflowId, revision: row.revision, alias: row.alias };
        if (!created) return { status: 200, body: { ...result, status: row.status, deduplicated: true } };

        const input: ExecutionInput = {
          executionId: row.id,
          organizationId: auth.organizationId,
          workflowId: runnable.workflow.id,
          workflowKey: runnable.workflow.key ?? undefined,
          revision: runnable.revision,
          alias: runnable.alias ?? undefined,
          definition: runnable.definition,
          inputs,
          trigger: triggerInfo,
          correlationKey: request.correlationKey,
          idempotencyKey: request.idempotencyKey,
        };
        let runId: string;
        try {
          const handle = await deps.temporal.workflow.start(EXECUTION_WORKFLOW_TYPE, {
            taskQueue: deps.taskQueue,
            workflowId: row.id,
            args: [input],
            // Search attributes are left out: they must be registered on the namespace first, and a missing one fails the start.
            memo: { organizationId: auth.organizationId, workflowId: runnable.workflow.id, workflowKey: runnable.workflow.key, revision: runnable.revision, alias: runnable.alias },
          });
          runId = handle.firstExecutionRunId;
        } catch {
          // Nothing half-written: the row goes, so a retry with the same idempotency key starts afresh.
          await deleteExecution(deps.dataSource, row.id);
          throw executorUnavailable();
        }
        await setTemporalRunId(deps.dataSource, row.id, runId);
        return { status: 202, body: { ...result, status: 'running' } };
      },
    }),
  ];
}
