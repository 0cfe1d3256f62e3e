/** Where a config entry lives: a folder `path` (with the `nrn` that guards it) or a workflow (guarded by the workflow's NRN). */
import type { DataSource } from 'typeorm';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { normalizeFolderPath } from '../../workflows/engine';
import { nrnInOrganization } from '../access/nrn';
import { workflowNrn } from '../access/workflow-reach';
import { invalidNrn, invalidPlace, placeWorkflowNotFound } from './config-errors';

export interface ConfigPlace {
  path: string | null;
  workflowId: string | null;
  workflowPath?: string;
  workflowNrn?: string;
  nrn?: string;
}

/**
 * Exactly one of path and workflow; a workflow is named by id or key and must be in the caller's
 * organization. `nrn` (folder entries only) is the one the body names, if any: `nrn` of a workflow
 * place is its workflow's, which guards its entries.
 */
export async function configPlace(
  dataSource: DataSource,
  organizationId: string,
  input: { path?: unknown; workflow?: unknown; nrn?: unknown },
): Promise<ConfigPlace> {
  const hasPath = input.path !== undefined && input.path !== null;
  const hasWorkflow = input.workflow !== undefined && input.workflow !== null;
  if (hasPath === hasWorkflow) throw invalidPlace('Give exactly one of path and workflow.');
  if (hasPath) {
    const path = typeof input.path === 'string' ? normalizeFolderPath(input.path) : undefined;
    if (path === undefined) throw invalidPlace('path must be an absolute folder path such as /team/payments.');
    if (input.nrn === undefined) return { path, workflowId: null };
    if (typeof input.nrn !== 'string') throw invalidNrn('nrn must be a string such as organization=1:account=7.');
    const inside = nrnInOrganization(input.nrn, organizationId);
    if ('problem' in inside) throw invalidNrn(`nrn "${input.nrn}" ${inside.problem}.`);
    return { path, workflowId: null, nrn: inside.nrn };
  }
  if (input.nrn !== undefined)
    throw invalidNrn("nrn applies to folder entries only: a workflow's entries are guarded by the workflow's NRN.");
  if (typeof input.workflow !== 'string' || input.workflow === '') throw invalidPlace('workflow must be a workflow id or key.');
  const workflow = await new WorkflowRepository(dataSource.manager).findByRef(organizationId, input.workflow);
  if (!workflow) throw placeWorkflowNotFound(input.workflow);
  return { path: null, workflowId: workflow.id, workflowPath: workflow.path, workflowNrn: workflowNrn(workflow) };
}
