/** Resolves a sub-workflow's revision and records the child execution, returning the child's input. */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { insertExecution } from '../db/stores/executions';
import { resolveRunnable } from '../db/stores/runnable-revision';
import type { ExecutionInput } from '../workflows/engine/runtime/types';
import type { ChildPreparation } from './execution-activities';

export async function prepareChildExecution(dataSource: DataSource, namespace: string, request: ChildPreparation): Promise<ExecutionInput> {
  const runnable = await resolveRunnable(dataSource, request.organizationId, request.workflowId, { alias: request.alias, revision: request.revision });
  if (typeof runnable === 'string') {
    throw ApplicationFailure.nonRetryable(`sub-workflow "${request.workflowId}" cannot run: ${runnable.replace(/-/g, ' ')}`, 'SUBWORKFLOW_NOT_FOUND');
  }
  const trigger = { source: 'sub-workflow' as const, payload: request.inputs, receivedAt: new Date().toISOString() };
  // The child id is minted by the parent workflow, so a retried activity finds its own row (idempotency key = child id).
  await insertExecution(dataSource, {
    id: request.childExecutionId,
    organizationId: request.organizationId,
    workflowId: runnable.workflow.id,
    workflowKey: runnable.workflow.key,
    revision: runnable.revision,
    alias: runnable.alias,
    inputs: request.inputs,
    trigger,
    correlationKey: request.correlationKey ?? null,
    idempotencyKey: `child:${request.childExecutionId}`,
    parentExecutionId: request.parentExecutionId,
    temporalNamespace: namespace,
    createdBy: null,
  });
  return {
    executionId: request.childExecutionId,
    organizationId: request.organizationId,
    workflowId: runnable.workflow.id,
    workflowKey: runnable.workflow.key ?? undefined,
    revision: runnable.revision,
    alias: runnable.alias ?? undefined,
    definition: runnable.definition,
    inputs: request.inputs,
    trigger,
    correlationKey: request.correlationKey,
    parentExecutionId: request.parentExecutionId,
  };
}
