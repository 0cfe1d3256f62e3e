/**
 * An execution as the caller may see it: its row in the caller's organization,
 * once the caller holds the permission on its workflow's NRN, and the Temporal
 * handle that cancel and terminate act on. Reads of its state come from
 * PostgreSQL only (./recorded-state.ts).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { In } from 'typeorm';
import type { ExecutionEntity } from '../../db/entities/execution';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { accessFromRead, callerKeyOf } from '../access/access';
import { organizationNrn } from '../access/nrn';
import type { AuthContext } from '../http/auth';
import type { Permission } from '../http/permissions';
import { workflowNrn } from '../workflows/authorize';
import type { ExecutionDeps } from './deps';
import { executionNotFound } from './errors';

export const isFinished = (row: Pick<ExecutionEntity, 'status'>): boolean => row.status !== 'running' && row.status !== 'waiting';

/**
 * The execution `id` of the caller's organization, once the caller holds
 * `permission` on its workflow's NRN (the organization's when the workflow was
 * deleted since). Another organization's execution is indistinguishable from a
 * missing one.
 */
export async function authorizedExecution(
  deps: ExecutionDeps,
  auth: AuthContext,
  id: string,
  permission: Permission,
): Promise<ExecutionEntity> {
  return (await guardedExecution(deps, auth, id, permission)).row;
}

/** As authorizedExecution, with the NRN that guards the execution (what its audit events are about). */
export async function guardedExecution(
  deps: ExecutionDeps,
  auth: AuthContext,
  id: string,
  permission: Permission,
): Promise<{ row: ExecutionEntity; nrn: string }> {
  // The row and the caller's grants in one statement: a polling client pays one round trip per read.
  const { grants, found } = await new ExecutionRepository(deps.dataSource.manager).findWithWorkflowNrnAndGrants(callerKeyOf(auth), id);
  const access = await accessFromRead(deps.dataSource, auth, grants);
  if (!found) throw executionNotFound(id);
  const workflow = found.workflow && { nrn: found.workflow.nrn, organizationId: auth.organizationId };
  const nrn = executionNrn(auth.organizationId, workflow);
  access.require(permission, nrn, () => executionNotFound(id));
  return { row: found.row, nrn };
}

/** What guards an execution: its workflow's NRN, or the organization's once the workflow was deleted. */
function executionNrn(organizationId: string, workflow: Pick<WorkflowEntity, 'nrn' | 'organizationId'> | null): string {
  return workflow ? workflowNrn(workflow) : organizationNrn(organizationId);
}

/** The NRN that guards the executions of each workflow now, in one read (for re-checks of open event streams). */
export async function executionNrns(
  deps: Pick<ExecutionDeps, 'dataSource'>,
  organizationId: string,
  workflowIds: string[],
): Promise<Map<string, string>> {
  const workflows = await new WorkflowRepository(deps.dataSource.manager).find({
    select: { id: true, organizationId: true, nrn: true },
    where: { organizationId, id: In(workflowIds) },
  });
  const byId = new Map(workflows.map((w) => [w.id, w]));
  return new Map(workflowIds.map((id) => [id, executionNrn(organizationId, byId.get(id) ?? null)]));
}

/**
 * The execution's workflow, whichever run is current: an execution continues as
 * new on long runs, and the execution id (the workflow id) is never reused, so
 * the handle follows the chain from the first run instead of pinning one run.
 */
export function executionHandle(deps: ExecutionDeps, row: ExecutionEntity): WorkflowHandle {
  return deps.temporal.workflow.getHandle(row.id, undefined, { firstExecutionRunId: row.temporalRunId ?? undefined });
}
