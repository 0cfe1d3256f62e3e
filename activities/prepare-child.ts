/** Resolves a sub-workflow's revision and records the child execution, returning the child's input. */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { recordRun, resolveRunnable } from '../db/stores/runnable-revision';
import type { ExecutionInput } from '../workflows/engine';
import type { ChildPreparation } from './execution-activity-types';

export async function prepareChildExecution(dataSource: DataSource, namespace: string, publicBaseUrl: string | undefined, request: ChildPreparation): Promise<ExecutionInput> {
  const runnable = await resolveRunnable(dataSource, request.organizationId, request.workflowId, { alias: request.alias, revision: request.revision });
  if (typeof runnable === 'string') {
    throw ApplicationFailure.nonRetryable(`sub-workflow "${request.workflowId}" cannot run: ${runnable.replace(/-/g, ' ')}`, 'SUBWORKFLOW_NOT_FOUND');
  }
  const trigger = { source: 'sub-workflow' as const, payload: request.inputs, receivedAt: new Date().toISOString() };
  // The child id is minted by the parent workflow, so a retried activity finds its own row (idempotency key = child id).
  const { input } = await recordRun(dataSource, {
    id: request.childExecutionId,
    organizationId: request.organizationId,
    runnable,
    inputs: request.inputs,
    trigger,
    correlationKey: request.correlationKey,
    idempotencyKey: `child:${request.childExecutionId}`,
    parentExecutionId: request.parentExecutionId,
    createdBy: null,
    temporalNamespace: namespace,
    publicBaseUrl,
  });
  return input;
}
