/**
 * Reads of the running workflow: the row of the caller's organization, and
 * the live state query. A query that fails (not yet picked up by a worker,
 * just finished, Temporal down) answers undefined and callers fall back to
 * what PostgreSQL recorded.
 */
import type { WorkflowHandle } from '@temporalio/client';
import type { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { stateQuery, type ExecutionState } from '../../workflows/messages';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { authorize } from '../access/access';
import { organizationNrn } from '../access/nrn';
import type { AuthContext } from '../http/auth';
import type { Permission } from '../http/permissions';
import { workflowNrn } from '../workflows/authorize';
import { withSignedCallback } from './callback-token';
import type { ExecutionDeps } from './deps';
import { executionNotFound } from './errors';

export const isFinished = (row: ExecutionEntity): boolean => row.status !== 'running' && row.status !== 'waiting';

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
  const row = await new ExecutionRepository(deps.dataSource.manager).findInOrganization(auth.organizationId, id);
  if (!row) throw executionNotFound(id);
  const workflow = await new WorkflowRepository(deps.dataSource.manager).findOneBy({
    organizationId: auth.organizationId,
    id: row.workflowId,
  });
  const nrn = workflow ? workflowNrn(workflow) : organizationNrn(auth.organizationId);
  await authorize(deps.dataSource, auth, permission, nrn, () => executionNotFound(id));
  return row;
}

/** A query waits for a worker to answer it; a read must not hang when no worker polls (the recorded state answers instead). */
/**
 * The execution's workflow, whichever run is current: an execution continues as
 * new on long runs, and the execution id (the workflow id) is never reused, so
 * the handle follows the chain from the first run instead of pinning one run.
 */
export function executionHandle(deps: ExecutionDeps, row: ExecutionEntity): WorkflowHandle {
  return deps.temporal.workflow.getHandle(row.id, undefined, { firstExecutionRunId: row.temporalRunId ?? undefined });
}

export const STATE_QUERY_DEADLINE_MS = 3000;

export async function liveState(deps: ExecutionDeps, row: ExecutionEntity): Promise<ExecutionState | undefined> {
  if (isFinished(row)) return undefined;
  try {
    const handle = executionHandle(deps, row);
    const state = await deps.temporal.withDeadline(Date.now() + STATE_QUERY_DEADLINE_MS, () => handle.query(stateQuery));
    return { ...state, pendingWaits: state.pendingWaits.map((wait) => withSignedCallback(deps.callbackKey, row.id, wait)) };
  } catch {
    return undefined;
  }
}
