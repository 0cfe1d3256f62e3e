/**
 * Starting an execution, shared by the execute endpoint and webhook ingress:
 * record the execution (the unique index decides idempotency), then start the
 * Temporal workflow. A failed start removes the row again (ExecutorUnavailable),
 * so nothing is left half-written. A start lost to a crash between the two is
 * repaired by the start reconciler (reconcile-starts.ts), which starts the
 * workflow the same way through startExecutionWorkflow.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ExecutionEntity } from '../db/entities/execution';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import type { Runnable } from '../db/repositories/workflow-revision-repository';
import type { TriggerInfo } from '../workflows/engine';
import type { StartDeps } from './deps';
import { ExecutorUnavailable } from './errors';
import { newExecutionId } from './ids';
import { recordRun } from './record-run';
import { firstRunId, startExecutionWorkflow, startOutcomeUnknown } from './start-workflow';

export interface StartRequest {
  organizationId: string;
  runnable: Runnable;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  correlationKey?: string;
  idempotencyKey?: string;
  createdBy: string | null;
}

/** Records and starts an execution; `created: false` when the idempotency key names an existing one. Throws ExecutorUnavailable. */
export async function startExecution(deps: StartDeps, request: StartRequest): Promise<{ row: ExecutionEntity; created: boolean }> {
  const executions = new ExecutionRepository(deps.dataSource.manager);
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
    settings: { publicBaseUrl: deps.publicBaseUrl, limits: deps.limits },
  });
  if (!created) return { row, created };

  let runId: string | undefined;
  try {
    runId = await startExecutionWorkflow(deps, row, input);
  } catch (error) {
    if (startOutcomeUnknown(error)) {
      // Temporal may have the run: the row stays (a retry with the same idempotency key finds it) and the
      // start reconciler records its run or starts it.
      throw new ExecutorUnavailable(error);
    }
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) {
      // Nothing half-written: the row goes, so a retry with the same idempotency key starts afresh.
      await executions.delete({ id: row.id });
      throw new ExecutorUnavailable(error);
    }
    // The start reconciler got there first (this start outlived its grace period): the run exists, so the row
    // stays. Its run id is recorded here, or by the reconciler's next sweep when Temporal cannot say right now.
    runId = await firstRunId(deps.temporal, row.id).catch(() => undefined);
  }
  if (runId !== undefined) await executions.setTemporalRunId(row.id, runId);
  return { row, created };
}
