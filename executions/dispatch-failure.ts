/**
 * Recovery runs. When an execution fails, every live `on-error` or
 * `execution-failed-trigger` binding of its organization (any workflow, any
 * active alias) that matches the failure starts a run of its revision from
 * that trigger step, with the failure as payload: `{executionId, workflowId,
 * stepId, error}`.
 *
 * - Within reach only: a binding hears a failure only when its workflow's NRN
 *   reaches the failed workflow's (api/access/workflow-reach.ts, passed in as
 *   `reach`); the payload carries error messages, which must not leave the NRN.
 *
 * - Storage-routed: the bindings are rows, so whichever process sees the
 *   failure dispatches it (the worker right after recording it; the start
 *   reconciler's failure sweep for a failure whose process died before).
 * - Exactly once per handler workflow: the idempotency key
 *   `onerror:<failedExecutionId>` is unique per workflow, so a repeat (a
 *   retried activity, the sweep racing the worker, two replicas) finds the
 *   existing run. Two live aliases of one handler workflow share that key:
 *   the first starts the run.
 * - One level: a recovery run that fails dispatches nothing.
 * - The failed execution is marked dispatched only when every start
 *   succeeded, so a start Temporal refused is retried by the sweep.
 */
import type { Logger } from 'pino';
import type { ExecutionEntity } from '../db/entities/execution';
import type { TriggerBindingEntity } from '../db/entities/trigger-binding';
import { ExecutionSweepRepository } from '../db/repositories/execution-sweep-repository';
import { TriggerBindingRepository } from '../db/repositories/trigger-binding-repository';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import type { StartDeps, WorkflowReach } from './deps';
import { startExecution } from './start-execution';

export const RECOVERY_TRIGGERS = ['on-error', 'execution-failed-trigger'];
export const recoveryIdempotencyKey = (failedExecutionId: string): string => `onerror:${failedExecutionId}`;

export type DispatchDeps = StartDeps & { logger: Pick<Logger, 'info' | 'warn'>; reach: WorkflowReach };

export interface FailurePayload extends Record<string, unknown> {
  executionId: string;
  workflowId: string;
  stepId: string | null;
  error: Record<string, unknown>;
}

/** Starts the recovery runs of one failed execution; returns their execution ids. Throws when a start fails (nothing marked then). */
export async function dispatchFailure(deps: DispatchDeps, failed: ExecutionEntity): Promise<string[]> {
  const executions = new ExecutionSweepRepository(deps.dataSource.manager);
  if (failed.trigger.source === 'on-error') {
    // One level only: a failing recovery run never triggers another.
    await executions.markFailureDispatched(failed.id);
    return [];
  }
  const error = failed.error ?? { type: 'EXECUTION_FAILED', message: 'the execution failed' };
  const payload: FailurePayload = {
    executionId: failed.id,
    workflowId: failed.workflowId,
    stepId: typeof error.stepId === 'string' ? error.stepId : null,
    error,
  };
  const bindings = await new TriggerBindingRepository(deps.dataSource.manager).liveOfKinds(
    failed.organizationId,
    RECOVERY_TRIGGERS,
    failed.workflowId,
  );
  const revisions = new WorkflowRevisionRepository(deps.dataSource.manager);
  const started: string[] = [];
  for (const binding of bindings) {
    // A failure of a workflow that no longer exists is heard by none (its NRN is unknown).
    if (!binding.about || !deps.reach.reaches(deps.reach.nrnOf(binding.workflow), deps.reach.nrnOf(binding.about))) continue;
    const runnable = await revisions.findRunnable(failed.organizationId, binding.workflowId, { revision: binding.revision });
    if (typeof runnable === 'string') continue;
    const config = runnable.definition.steps[binding.triggerId]?.config ?? {};
    if (!matches(binding, config, failed, payload)) continue;
    const { row } = await startExecution(deps, {
      organizationId: failed.organizationId,
      runnable: { ...runnable, alias: binding.aliasName },
      inputs: payload,
      trigger: { stepId: binding.triggerId, source: 'on-error', payload, receivedAt: new Date().toISOString() },
      idempotencyKey: recoveryIdempotencyKey(failed.id),
      createdBy: null,
    });
    started.push(row.id);
  }
  await executions.markFailureDispatched(failed.id);
  if (started.length > 0)
    deps.logger.info({ executionId: failed.id, recoveryRuns: started }, 'recovery runs started for a failed execution');
  return started;
}

/** Whether a recovery trigger wants this failure. */
function matches(
  binding: TriggerBindingEntity,
  config: Record<string, unknown>,
  failed: ExecutionEntity,
  payload: FailurePayload,
): boolean {
  if (binding.pluginType === 'on-error') {
    const scope = config.scope ?? config.listenFor;
    return scope === 'step' ? payload.stepId !== null : true;
  }
  const watched = config.workflowId ?? config.workflow_id;
  if (typeof watched !== 'string' || watched === '') return true;
  return watched === failed.workflowId || (failed.workflowKey !== null && watched === failed.workflowKey);
}

export interface FailureSweepOptions {
  /** Failures younger than this are left to the worker that recorded them (default 30 s). */
  graceMs?: number;
  /** Failures dispatched per sweep at most (default 50). */
  batchSize?: number;
  /** Only this organization's rows (tests share one database). */
  organizationId?: string;
}

/** The backstop: dispatches failures nobody dispatched (the recording process died first). Returns the failed ids handled. */
export async function sweepFailures(deps: DispatchDeps, options: FailureSweepOptions = {}): Promise<string[]> {
  const rows = await new ExecutionSweepRepository(deps.dataSource.manager).findFailedUndispatched({
    graceMs: options.graceMs ?? 30_000,
    limit: options.batchSize ?? 50,
    organizationId: options.organizationId,
  });
  const handled: string[] = [];
  for (const row of rows) {
    try {
      await dispatchFailure(deps, row);
      handled.push(row.id);
    } catch (error) {
      deps.logger.warn({ err: error, executionId: row.id }, 'recovery runs could not be started; the next sweep retries');
    }
  }
  return handled;
}
