/**
 * Which revision an execution runs: an explicit revision number wins, else the
 * named alias (default `latest`). Shared by the execute endpoint, webhook and
 * cron starts, and sub-workflow children; the input a run's workflow receives
 * is built here too, for new runs and for recorded runs whose start was lost.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { ExecutionInput, TriggerInfo, WorkflowDefinition } from '../../workflows/engine';
import { insertExecution, type ExecutionRow, type NewExecution } from './executions';
import { findAlias } from './workflow-aliases';
import type { WorkflowRow } from './workflow-rows';
import { findRevision, findWorkflow } from './workflows';

export interface Runnable {
  workflow: WorkflowRow;
  revision: number;
  alias: string | null;
  definition: WorkflowDefinition;
}

export type RunnableMiss = 'workflow-not-found' | 'alias-not-found' | 'revision-not-found';

export async function resolveRunnable(
  db: DataSource | EntityManager,
  organizationId: string,
  ref: string,
  choice: { alias?: string; revision?: number },
): Promise<Runnable | RunnableMiss> {
  const workflow = await findWorkflow(db, organizationId, ref);
  if (!workflow) return 'workflow-not-found';
  let revision = choice.revision;
  let alias: string | null = null;
  if (revision === undefined) {
    alias = choice.alias ?? 'latest';
    const row = await findAlias(db, workflow.id, alias);
    if (!row) return 'alias-not-found';
    revision = row.revision;
  }
  const revisionRow = await findRevision(db, workflow.id, revision);
  if (!revisionRow?.definition) return 'revision-not-found';
  return { workflow, revision, alias, definition: revisionRow.definition as unknown as WorkflowDefinition };
}

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
  publicBaseUrl?: string;
}

/**
 * Records an execution of a runnable revision (the unique index on the
 * idempotency key decides duplicates) and builds the input its workflow
 * receives. Shared by every way an execution starts: API, webhook, cron tick,
 * sub-workflow.
 */
export async function recordRun(db: DataSource | EntityManager, run: NewRun): Promise<{ row: ExecutionRow; created: boolean; input: ExecutionInput }> {
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
  };
  const { row, created } = await insertExecution(db, execution);
  // Built from what this call asked for (an existing row under the same key is only reused by id).
  const input = executionInput({ ...execution, id: row.id }, runnable.definition, run.publicBaseUrl);
  return { row, created, input };
}

/** The recorded fields of an execution its workflow input is built from. */
export type RecordedRun = Pick<
  ExecutionRow,
  'id' | 'organizationId' | 'workflowId' | 'workflowKey' | 'revision' | 'alias' | 'inputs' | 'trigger' | 'correlationKey' | 'idempotencyKey' | 'parentExecutionId'
>;

/**
 * The input an execution's workflow receives: its recorded fields plus the
 * definition of its revision. One builder for a new run (recordRun) and for a
 * recorded run whose start was lost (the start reconciler), so both start the
 * same workflow.
 */
export function executionInput(run: RecordedRun, definition: WorkflowDefinition, publicBaseUrl: string | undefined): ExecutionInput {
  return {
    executionId: run.id,
    organizationId: run.organizationId,
    workflowId: run.workflowId,
    workflowKey: run.workflowKey ?? undefined,
    revision: run.revision,
    alias: run.alias ?? undefined,
    definition,
    inputs: run.inputs,
    trigger: run.trigger as unknown as TriggerInfo,
    correlationKey: run.correlationKey ?? undefined,
    idempotencyKey: run.idempotencyKey ?? undefined,
    parentExecutionId: run.parentExecutionId ?? undefined,
    publicBaseUrl,
  };
}

/**
 * The workflow input of a recorded execution, rebuilt from its row and the
 * revision it names; undefined when that revision no longer exists (its
 * workflow was deleted).
 */
export async function recordedRunInput(db: DataSource | EntityManager, row: RecordedRun, publicBaseUrl: string | undefined): Promise<ExecutionInput | undefined> {
  const revision = await findRevision(db, row.workflowId, row.revision);
  if (!revision?.definition) return undefined;
  return executionInput(row, revision.definition as unknown as WorkflowDefinition, publicBaseUrl);
}
