/**
 * Which revision an execution runs: an explicit revision number wins, else the
 * named alias (default `latest`). Shared by the execute endpoint, webhook and
 * cron starts, and sub-workflow children. Recording the run and building its
 * workflow input is the execution module's job (executions/).
 */
import type { DataSource, EntityManager } from 'typeorm';
import type { WorkflowDefinition } from '../../workflows/engine';
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
