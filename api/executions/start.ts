/**
 * Starting an execution, shared by the execute endpoint and webhook ingress:
 * record the execution (the unique index decides idempotency), then start the
 * Temporal workflow. A failed start removes the row again, so a 503 leaves
 * nothing half-written.
 */
import { deleteExecution, setTemporalRunId, type ExecutionRow } from '../../db/stores/executions';
import { recordRun, type Runnable } from '../../db/stores/runnable-revision';
import type { TriggerInfo } from '../../workflows/engine/runtime/types';
import { EXECUTION_WORKFLOW_TYPE } from '../../workflows/engine/workflow-types';
import type { ExecutionDeps } from './deps';
import { executorUnavailable } from './errors';
import { newExecutionId } from './ids';

export interface StartRequest {
  organizationId: string;
  runnable: Runnable;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  correlationKey?: string;
  idempotencyKey?: string;
  createdBy: string | null;
}

export async function startExecution(deps: ExecutionDeps, request: StartRequest): Promise<{ row: ExecutionRow; created: boolean }> {
  const { row, created, input } = await recordRun(deps.dataSource, {
    id: newExecutionId(),
    organizationId: request.organizationId,
    runnable: request.runnable,
    inputs: request.inputs,
    trigger: request.trigger,
    correlationKey: request.correlationKey,
    idempotencyKey: request.idempotencyKey,
    createdBy: request.createdBy,
    temporalNamespace: deps.temporal.options.namespace,
    publicBaseUrl: deps.publicBaseUrl,
  });
  if (!created) return { row, created };

  const { runnable } = request;
  let runId: string;
  try {
    const handle = await deps.temporal.workflow.start(EXECUTION_WORKFLOW_TYPE, {
      taskQueue: deps.taskQueue,
      workflowId: row.id,
      args: [input],
      // Search attributes are left out: they must be registered on the namespace first, and a missing one fails the start.
      memo: { organizationId: request.organizationId, workflowId: runnable.workflow.id, workflowKey: runnable.workflow.key, revision: runnable.revision, alias: runnable.alias },
    });
    runId = handle.firstExecutionRunId;
  } catch {
    // Nothing half-written: the row goes, so a retry with the same idempotency key starts afresh.
    await deleteExecution(deps.dataSource, row.id);
    throw executorUnavailable();
  }
  await setTemporalRunId(deps.dataSource, row.id, runId);
  return { row, created };
}
