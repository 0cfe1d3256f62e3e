/** Resolves a sub-workflow's revision and records the child execution, returning the child's input. */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import { handRunInputs, handRunPayload, handRunTrigger, type ExecutionInput, type RunLimits, type TriggerInfo } from '../workflows/engine';
import type { WorkflowReach } from './deps';
import { ChildOutOfReach, RevisionNotRunnable } from './errors';
import { recordRun } from './record-run';

/** What a parent workflow asks for (the prepareChild activity's request). */
export interface ChildRunRequest {
  parentExecutionId: string;
  organizationId: string;
  workflowId: string;
  alias?: string;
  revision?: number;
  inputs: Record<string, unknown>;
  correlationKey?: string;
  childExecutionId: string;
  /** The parent's limits, which the child inherits, and the child's nesting. */
  limits?: RunLimits;
  depth: number;
  /** The tree's root (the parent's root, or the parent itself): its row counts the tree against its budget. */
  rootExecutionId?: string;
}

export interface PrepareDeps {
  dataSource: DataSource;
  temporalNamespace: string;
  publicBaseUrl?: string;
  /** The service's limits, for runs that inherit none (cron ticks). */
  limits: RunLimits;
  /** Which workflows a parent may run as children (api/access/workflow-reach.ts, passed in). */
  reach: WorkflowReach;
  /** Where a cron tick's cancel-in-progress cancels the runs it replaces; absent, they end in the database only. */
  temporal?: Client;
}

/**
 * Throws RevisionNotRunnable when the child's workflow, alias or revision does not exist, and
 * ChildOutOfReach when the parent's workflow (its NRN as it is now, read in the same statement)
 * does not reach the child's: then nothing is recorded.
 */
export async function prepareChildRun(deps: PrepareDeps, request: ChildRunRequest): Promise<ExecutionInput> {
  const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(request.organizationId, request.workflowId, {
    alias: request.alias,
    revision: request.revision,
    reachFrom: request.parentExecutionId,
  });
  if (typeof runnable === 'string') throw new RevisionNotRunnable(runnable);
  const parentNrn = runnable.reachFrom ? deps.reach.nrnOf(runnable.reachFrom) : null;
  const childNrn = deps.reach.nrnOf(runnable.workflow);
  if (parentNrn === null || !deps.reach.reaches(parentNrn, childNrn)) throw new ChildOutOfReach(parentNrn, childNrn);
  // As a start by hand (workflows/engine/hand-run.ts): the manual trigger, else the only one, fired with a run-now
  // payload; a child of a workflow with several other triggers names none, and its run fails saying so.
  const handRun = handRunTrigger(runnable.definition);
  const fired = handRun.ok ? handRun.step : undefined;
  const now = new Date();
  const payload = handRunPayload(runnable.definition, fired, request.inputs, now);
  const trigger: TriggerInfo = {
    ...(fired ? { stepId: fired.id } : {}),
    source: 'sub-workflow',
    payload,
    receivedAt: now.toISOString(),
  };
  // The child id is minted by the parent workflow, so a retried activity finds its own row (idempotency key = child id).
  const { input } = await recordRun(deps.dataSource, {
    id: request.childExecutionId,
    organizationId: request.organizationId,
    runnable,
    inputs: handRunInputs(fired, payload, request.inputs),
    trigger,
    correlationKey: request.correlationKey,
    idempotencyKey: `child:${request.childExecutionId}`,
    parentExecutionId: request.parentExecutionId,
    createdBy: null,
    // At a full flow-control key a child is refused (FlowLimitReached): the parent's step fails saying so.
    flowCaller: { kind: 'child' },
    temporalNamespace: deps.temporalNamespace,
    // Counted against the tree's budget on the root's row (recordRun); throws TreeBudgetExceeded past it.
    settings: {
      publicBaseUrl: deps.publicBaseUrl,
      limits: request.limits ?? deps.limits,
      depth: request.depth,
      rootExecutionId: request.rootExecutionId,
    },
  });
  return input;
}
