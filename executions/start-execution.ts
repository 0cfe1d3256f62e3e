/**
 * Starting an execution, shared by the execute endpoint and webhook ingress:
 * record the execution (the unique index decides idempotency), then start the
 * Temporal workflow, then its run id (not awaited). A failed start removes the row again (ExecutorUnavailable),
 * so nothing is left half-written. A start lost to a crash between the two is
 * repaired by the start reconciler (reconcile-starts.ts), which starts the
 * workflow the same way through startExecutionWorkflow.
 */
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import type { ExecutionEntity, RerunKind } from '../db/entities/execution';
import { AuditEventRepository } from '../db/repositories/audit-event-repository';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import type { Runnable } from '../db/repositories/workflow-revision-repository';
import type { ReusedSteps, TriggerInfo } from '../workflows/engine';
import type { StartDeps } from './deps';
import { ExecutorUnavailable } from './errors';
import { newExecutionId } from './ids';
import { cancelInTemporal } from './flow/promote';
import { recordRun, type NewRun } from './record-run';
import { firstRunId, startExecutionWorkflow, startOutcomeUnknown } from './start-workflow';

export interface StartRequest {
  organizationId: string;
  runnable: Runnable;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  correlationKey?: string;
  idempotencyKey?: string;
  createdBy: string | null;
  /** A re-run or retry (./rerun-execution.ts): the execution it runs again, how, and what a retry reuses. */
  rerun?: { of: string; kind: RerunKind; reuse?: ReusedSteps };
  /**
   * The start's audit event, written by the statement that inserts the execution row, only when that row is new
   * (ExecutionRepository.insertIdempotent: both or neither). A start Temporal refused removes the row and marks
   * the event `outcome: failed` in one transaction.
   */
  audit?: NewRun['audit'];
}

/**
 * Records and starts an execution; `created: false` when the idempotency key names an existing one (or a
 * debounce start was folded into its key's queued run: `merged`). A run flow control queued comes back
 * `queued` and is started later (./flow/). Throws ExecutorUnavailable, and FlowKeyInvalid, FlowLimitReached, FlowQueueFull.
 */
export async function startExecution(
  deps: StartDeps,
  request: StartRequest,
): Promise<{ row: ExecutionEntity; created: boolean; merged?: boolean }> {
  const executions = new ExecutionRepository(deps.dataSource.manager);
  const { row, created, input, auditId, flow } = await recordRun(deps.dataSource, {
    id: newExecutionId(),
    organizationId: request.organizationId,
    runnable: request.runnable,
    inputs: request.inputs,
    trigger: request.trigger,
    correlationKey: request.correlationKey,
    idempotencyKey: request.idempotencyKey,
    createdBy: request.createdBy,
    temporalNamespace: deps.temporal.options.namespace,
    settings: { publicBaseUrl: deps.publicBaseUrl, limits: deps.limits, ...(request.rerun?.reuse ? { reuse: request.rerun.reuse } : {}) },
    ...(request.rerun ? { rerun: { of: request.rerun.of, kind: request.rerun.kind } } : {}),
    audit: request.audit,
  });
  if (!created) return { row, created, ...(flow?.merged ? { merged: true } : {}) };
  // Queued by flow control: promotion or the flow sweep starts it when its slot or its time comes.
  if (row.status === 'queued') return { row, created };
  if (flow && flow.cancelled.length > 0) await cancelInTemporal(deps.temporal, flow.cancelled);

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
      await deps.dataSource.transaction(async (m) => {
        await new ExecutionRepository(m).delete({ id: row.id });
        if (auditId !== undefined) await new AuditEventRepository(m).addDetails(auditId, { outcome: 'failed' });
      });
      throw new ExecutorUnavailable(error);
    }
    // The start reconciler got there first (this start outlived its grace period): the run exists, so the row
    // stays. Its run id is recorded here, or by the reconciler's next sweep when Temporal cannot say right now.
    runId = await firstRunId(deps.temporal, row.id).catch(() => undefined);
  }
  // Not awaited: nothing the caller is told needs the run id (a handle without it finds the run by its workflow id),
  // and the answer comes a round trip sooner. A write lost here is the start reconciler's to repair: it records the
  // run id of a row whose workflow exists (./reconcile-starts.ts, after its grace period).
  if (runId !== undefined) executions.setTemporalRunId(row.id, runId).catch(() => undefined);
  return { row, created };
}
