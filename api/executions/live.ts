/**
 * A live execution: whether it has finished, the NRNs that guard the executions
 * of workflows (for re-checks of open event streams), and the Temporal handle
 * that cancel and terminate act on. The authorized read of one execution is
 * api/access/engine-access.ts `authorizedExecution` (routes declare it:
 * `access: { permission, on: 'execution' }`). Reads of its state come from
 * PostgreSQL only (./recorded-state.ts).
 */
import type { WorkflowHandle } from '@temporalio/client';
import { In } from 'typeorm';
import type { ExecutionEntity } from '../../db/entities/execution';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { organizationNrn } from '../access/nrn';
import { workflowNrn } from '../access/workflow-reach';
import type { ExecutionDeps } from './deps';

export const isFinished = (row: Pick<ExecutionEntity, 'status'>): boolean => row.status !== 'running' && row.status !== 'waiting';

/** The NRN that guards the executions of each workflow now (its own; the organization's once deleted), in one read. */
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
  return new Map(
    workflowIds.map((id) => {
      const workflow = byId.get(id);
      return [id, workflow ? workflowNrn(workflow) : organizationNrn(organizationId)];
    }),
  );
}

/**
 * The execution's workflow, whichever run is current: an execution continues as
 * new on long runs, and the execution id (the workflow id) is never reused, so
 * the handle follows the chain from the first run instead of pinning one run.
 */
export function executionHandle(deps: ExecutionDeps, row: ExecutionEntity): WorkflowHandle {
  return deps.temporal.workflow.getHandle(row.id, undefined, { firstExecutionRunId: row.temporalRunId ?? undefined });
}
