/**
 * Starting an execution, shared by the execute endpoint and webhook ingress:
 * record the execution (the unique index decides idempotency), then start the
 * Temporal workflow. A failed start removes the row again, so a 503 leaves
 * nothing half-written. A start lost to a crash between the two is repaired by
 * the start reconciler (runtime/execution-reconciler.ts), which starts the
 * workflow the same way through startExecutionWorkflow.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import { deleteExecution, setTemporalRunId, type ExecutionRow } from '../../db/stores/executions';
import { recordRun, type Runnable } from '../../db/stores/runnable-revision';
import { EXECUTION_WORKFLOW_TYPE, type ExecutionInput, type TriggerInfo } from '../../workflows/engine';
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

  let runId: string | undefined;
  try {
    runId = await startExecutionWorkflow(deps, row, input);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
      // Nothing half-written: the row goes, so a retry with the same idempotency key starts afresh.
      await deleteExecution(deps.dataSource, row.id);
      throw executorUnavailable();
    }
    // The start reconciler got there first (this start outlived its grace period): the run exists, so the row
    // stays. Its run id is recorded here, or by the reconciler's next sweep when Temporal cannot say right now.
    runId = await firstRunId(deps.temporal, row.id).catch(() => undefined);
  }
  if (runId !== undefined) await setTemporalRunId(deps.dataSource, row.id, runId);
  return { row, created };
}

/**
 * Starts the Temporal workflow of a recorded execution (workflow id = execution
 * id) and resolves with its run id. Throws WorkflowExecutionAlreadyStartedError
 * when a workflow with that id exists, running or closed: an execution id
 * names one run only, so a start that comes late (a replica, the reconciler)
 * never runs an execution twice.
 */
export async function startExecutionWorkflow(deps: Pick<ExecutionDeps, 'temporal' | 'taskQueue'>, row: ExecutionRow, input: ExecutionInput): Promise<string> {
  const handle = await deps.temporal.workflow.start(EXECUTION_WORKFLOW_TYPE, {
    taskQueue: deps.taskQueue,
    workflowId: row.id,
    args: [input],
    workflowIdReusePolicy: 'REJECT_DUPLICATE',
    // Search attributes are left out: they must be registered on the namespace first, and a missing one fails the start.
    memo: { organizationId: row.organizationId, workflowId: row.workflowId, workflowKey: row.workflowKey, revision: row.revision, alias: row.alias },
  });
  return handle.firstExecutionRunId;
}

/**
 * The id of the first run of the execution's workflow (what temporal_run_id
 * holds, also after continue-as-new). Throws WorkflowNotFoundError when no
 * such workflow exists.
 */
export async function firstRunId(temporal: Client, executionId: string): Promise<string> {
  const description = await temporal.workflow.getHandle(executionId).describe();
  return description.raw.workflowExecutionInfo?.firstRunId || description.runId;
}
