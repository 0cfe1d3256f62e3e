/**
 * Records an execution of a runnable revision (the unique index on the
 * idempotency key decides duplicates) and builds the input its workflow
 * receives. Shared by every way an execution starts: API, webhook, cron tick,
 * sub-workflow.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { ExecutionEntity, RerunKind } from '../db/entities/execution';
import type { NewAuditEvent } from '../db/repositories/audit-event-repository';
import { ExecutionAdmissionRepository } from '../db/repositories/execution-admission-repository';
import { ExecutionRepository, type NewExecution } from '../db/repositories/execution-repository';
import type { Runnable } from '../db/repositories/workflow-revision-repository';
import { flowPolicyOf, type ExecutionInput, type TriggerInfo } from '../workflows/engine';
import { TreeBudgetExceeded } from './errors';
import { admitRun, type FlowCaller } from './flow/admit';
import { executionInput, type InputSettings } from './workflow-input';

export interface NewRun {
  id: string;
  organizationId: string;
  runnable: Runnable;
  inputs: Record<string, unknown>;
  trigger: TriggerInfo;
  correlationKey?: string;
  idempotencyKey?: string;
  parentExecutionId?: string;
  createdBy: string | null;
  temporalNamespace: string;
  settings: InputSettings;
  /** A re-run or retry: the execution it runs again, and how. */
  rerun?: { of: string; kind: RerunKind };
  /** The run's audit event, written by the statement that records the run, only when it does (never a sub-workflow child's). */
  audit?: (execution: NewExecution) => NewAuditEvent;
  /** Who starts, for flow control at a full key (./flow/admit.ts); default a start from outside. */
  flowCaller?: FlowCaller;
}

/** What flow control did with a start (absent: the workflow has none). */
export interface FlowOutcome {
  /** A debounce start folded into the key's queued run. */
  merged: boolean;
  /** Runs a cancel-in-progress start ended: their Temporal workflows are to be cancelled. */
  cancelled: string[];
}

export async function recordRun(
  db: DataSource | EntityManager,
  run: NewRun,
): Promise<{ row: ExecutionEntity; created: boolean; input: ExecutionInput; auditId?: number; flow?: FlowOutcome }> {
  const { runnable } = run;
  const execution: NewExecution = {
    id: run.id,
    organizationId: run.organizationId,
    workflowId: runnable.workflow.id,
    workflowKey: runnable.workflow.key,
    revision: runnable.revision,
    alias: runnable.alias,
    inputs: run.inputs,
    trigger: { ...run.trigger },
    correlationKey: run.correlationKey ?? null,
    idempotencyKey: run.idempotencyKey ?? null,
    parentExecutionId: run.parentExecutionId ?? null,
    temporalNamespace: run.temporalNamespace,
    createdBy: run.createdBy,
    rerunOf: run.rerun?.of ?? null,
    rerunKind: run.rerun?.kind ?? null,
  };
  // Decided from the definition in hand: a workflow without flow control is recorded by the one statement it always was.
  const policy = flowPolicyOf(runnable.definition, runnable.aliasFlowControl);
  if (policy !== undefined) {
    // A tree budget still counts a flow-controlled child: on its root's row, before admission.
    if (run.settings.rootExecutionId !== undefined) await countChild(db, execution, run.settings);
    const admitted = await admitRun(db, execution, policy, run.flowCaller ?? { kind: 'start' }, run.audit?.(execution));
    const { row, created, auditId } = admitted;
    const input = executionInput({ ...execution, id: row.id, inputs: row.inputs, trigger: row.trigger }, runnable.definition, run.settings);
    return {
      row,
      created,
      input,
      ...(auditId !== undefined ? { auditId } : {}),
      flow: { merged: admitted.merged === true, cancelled: admitted.cancelled },
    };
  }
  const executions = new ExecutionRepository('manager' in db ? db.manager : db);
  const { row, created, auditId } = await recordCounted(executions, execution, run.settings, run.audit?.(execution));
  // Built from what this call asked for (an existing row under the same key is only reused by id).
  const input = executionInput({ ...execution, id: row.id }, runnable.definition, run.settings);
  return { row, created, input, ...(auditId !== undefined ? { auditId } : {}) };
}

/**
 * A child of a tree with a budget is counted on its root's row in the statement that records it
 * (ExecutionRepository.insertCounted); any other run is recorded as it is. Runs whose limits predate
 * the budget carry none, so their trees are not counted.
 */
async function recordCounted(
  executions: ExecutionRepository,
  execution: NewExecution,
  settings: InputSettings,
  audit: NewAuditEvent | undefined,
): Promise<{ row: ExecutionEntity; created: boolean; auditId?: number }> {
  const budget = settings.limits.maxExecutionsPerTree;
  const rootExecutionId = settings.rootExecutionId;
  if (rootExecutionId === undefined || budget === undefined || !Number.isFinite(budget))
    return executions.insertIdempotent(execution, audit);
  // Only the API's starts are audited, and they are roots: a counted child has no event to write.
  if (audit !== undefined) throw new Error('a counted sub-workflow child records no audit event');
  const recorded = await executions.insertCounted(execution, { rootExecutionId, budget });
  if (!recorded) throw new TreeBudgetExceeded(rootExecutionId, budget);
  return recorded;
}

/**
 * A flow-controlled child counted against its tree's budget before admission (ExecutionAdmissionRepository.countChild).
 * Admission may still refuse it: then the tree counts one child too many, never too few.
 */
async function countChild(db: DataSource | EntityManager, execution: NewExecution, settings: InputSettings): Promise<void> {
  const budget = settings.limits.maxExecutionsPerTree;
  const rootExecutionId = settings.rootExecutionId;
  if (rootExecutionId === undefined || budget === undefined || !Number.isFinite(budget)) return;
  const counted = await new ExecutionAdmissionRepository('manager' in db ? db.manager : db).countChild(execution, {
    rootExecutionId,
    budget,
  });
  if (!counted) throw new TreeBudgetExceeded(rootExecutionId, budget);
}
