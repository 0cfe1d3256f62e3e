/** Queued executions (flow control, executions/flow/) as the execution routes read and cancel them. */
import type { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionFlowRepository } from '../../db/repositories/execution-flow-repository';
import type { AuditTrail } from '../audit/trail';
import type { ExecutionDeps } from './deps';

/** A queued run's place in its key's queue (1: next); undefined for any other run, without a statement. */
export async function queuePosition(deps: ExecutionDeps, row: ExecutionEntity): Promise<number | undefined> {
  if (row.status !== 'queued') return undefined;
  return new ExecutionFlowRepository(deps.dataSource.manager).queuePosition(row);
}

/**
 * Ends a queued run as cancelled (or terminated): it has no Temporal workflow and holds no slot, so nothing else
 * moves. False when it left the queue meanwhile (promoted: the caller ends it as a running one).
 */
export async function cancelQueued(
  deps: ExecutionDeps,
  audit: AuditTrail,
  target: { row: ExecutionEntity; nrn: string },
  reason: string | undefined,
  status: 'cancelled' | 'terminated' = 'cancelled',
): Promise<boolean> {
  const { row, nrn } = target;
  const details = { workflowId: row.workflowId, reason, queued: true };
  return audit.around(deps.dataSource.manager, { nrn, id: row.id, details }, () =>
    new ExecutionFlowRepository(deps.dataSource.manager).endQueued(row.id, reason ?? `the queued execution was ${status}`, status),
  );
}
