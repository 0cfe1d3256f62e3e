/**
 * The input an execution's workflow receives: its recorded fields plus the
 * definition of its revision. One builder for a new run (recordRun) and for a
 * recorded run whose start was lost (the start reconciler), so both start the
 * same workflow.
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { NewExecution } from '../db/repositories/execution-repository';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import {
  ENGINE_RULES,
  runLimitsFrom,
  type ExecutionInput,
  type ReusedSteps,
  type RunLimits,
  type WorkflowDefinition,
} from '../workflows/engine';
import { retrySeed } from './retry-seed';

/** The recorded fields of an execution its workflow input is built from: what recording wrote, less the bookkeeping. */
export type RecordedRun = Omit<NewExecution, 'temporalNamespace' | 'createdBy'>;

/** What an execution input carries from the service rather than from the run's record. */
export interface InputSettings {
  /** The API's public base URL (callback URLs of webhook waits). */
  publicBaseUrl?: string;
  /** What the run may do (the service's limits; a child gets its parent's). */
  limits: RunLimits;
  /** Sub-workflow nesting (a child: its parent's + 1). */
  depth?: number;
  /** A child's root execution, whose row counts the tree against its budget (absent: the run is a root). */
  rootExecutionId?: string;
  /** A retry: the steps that completed in the execution it retries (./retry-seed.ts). */
  reuse?: ReusedSteps;
}

export function executionInput(run: RecordedRun, definition: WorkflowDefinition, settings: InputSettings): ExecutionInput {
  return {
    executionId: run.id,
    organizationId: run.organizationId,
    workflowId: run.workflowId,
    workflowKey: run.workflowKey ?? undefined,
    revision: run.revision,
    alias: run.alias ?? undefined,
    definition,
    inputs: run.inputs,
    trigger: run.trigger,
    correlationKey: run.correlationKey ?? undefined,
    idempotencyKey: run.idempotencyKey ?? undefined,
    parentExecutionId: run.parentExecutionId ?? undefined,
    publicBaseUrl: settings.publicBaseUrl,
    limits: runLimitsFrom(settings.limits),
    ...(settings.depth ? { depth: settings.depth } : {}),
    ...(settings.rootExecutionId ? { rootExecutionId: settings.rootExecutionId } : {}),
    ...(settings.reuse ? { reuse: settings.reuse } : {}),
    engineRules: ENGINE_RULES,
  };
}

/**
 * The workflow input of a recorded execution, rebuilt from its row and the
 * revision it names; undefined when that revision no longer exists (its
 * workflow was deleted).
 */
export async function recordedRunInput(
  db: DataSource | EntityManager,
  row: RecordedRun,
  settings: InputSettings,
): Promise<ExecutionInput | undefined> {
  const manager = 'manager' in db ? db.manager : db;
  const revision = await new WorkflowRevisionRepository(manager).findRevision(row.workflowId, row.revision);
  if (!revision) return undefined;
  // A retry reuses what completed in the execution it retries, read again from its records.
  const reuse = row.rerunKind === 'retry' && row.rerunOf ? await retrySeed(manager, row.rerunOf) : undefined;
  return executionInput(row, revision.definition, reuse ? { ...settings, reuse } : settings);
}
