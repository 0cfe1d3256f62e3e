/**
 * Promotion (./admit.ts has the whole design): the next queued runs of a concurrency key whose slot
 * freed move to `running` under the key's lock, then start in Temporal at once; and the Temporal start of
 * runs promoted by the flow sweep. A start that fails is left to the start reconciler (the row is
 * `running` without a run, as a lost start is), never deleted.
 */
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionAdmissionRepository } from '../../db/repositories/execution-admission-repository';
import { ExecutionFlowRepository } from '../../db/repositories/execution-flow-repository';
import { ExecutionRepository, type FlowScope } from '../../db/repositories/execution-repository';
import type { StartDeps } from '../deps';
import { startOrFindRun } from '../start-workflow';
import { recordedRunInput } from '../workflow-input';

export type PromoteDeps = Pick<StartDeps, 'dataSource' | 'temporal' | 'eagerStarts' | 'taskQueue' | 'publicBaseUrl' | 'limits'> & {
  logger?: { warn(details: object, message: string): void };
};

/** Promotes and starts the key's next queued runs while it has free slots; answers their ids. */
export async function promoteNext(deps: PromoteDeps, scope: FlowScope): Promise<string[]> {
  const rows = await deps.dataSource.transaction(async (m) => {
    await new ExecutionAdmissionRepository(m).lockKey(scope);
    return new ExecutionFlowRepository(m).promoteQueued(scope);
  });
  await startPromoted(deps, rows);
  return rows.map((row) => row.id);
}

/** Starts runs just moved to `running`; a failure is logged and left to the start reconciler. */
export async function startPromoted(deps: PromoteDeps, rows: ExecutionEntity[]): Promise<void> {
  await Promise.all(
    rows.map((row) =>
      startOne(deps, row).catch((error: unknown) =>
        deps.logger?.warn({ err: error, executionId: row.id }, 'a promoted run could not be started; the start reconciler retries'),
      ),
    ),
  );
}

async function startOne(deps: PromoteDeps, row: ExecutionEntity): Promise<void> {
  const executions = new ExecutionRepository(deps.dataSource.manager);
  const input = await recordedRunInput(deps.dataSource, row, { publicBaseUrl: deps.publicBaseUrl, limits: deps.limits });
  if (!input) {
    await executions.finish(row.id, 'failed', null, {
      type: 'START_LOST',
      message: `the queued execution could not start: revision ${row.revision} of its workflow no longer exists`,
    });
    return;
  }
  await startOrFindRun(deps, row, input);
  // Ended while it was being started (a cancel-in-progress start took its slot): its run must not go on.
  const now = await executions.findOne({ where: { id: row.id }, select: { id: true, status: true } });
  if (now && now.status !== 'running' && now.status !== 'waiting') await cancelInTemporal(deps.temporal, [row.id], deps.logger);
}

/** Requests cancellation of runs whose records flow control already ended (a workflow not found has nothing to cancel). */
export async function cancelInTemporal(temporal: Client, ids: string[], logger?: PromoteDeps['logger']): Promise<void> {
  await Promise.all(
    ids.map((id) =>
      temporal.workflow
        .getHandle(id)
        .cancel()
        .catch((error: unknown) => {
          if (!(error instanceof WorkflowNotFoundError))
            logger?.warn({ err: error, executionId: id }, 'a cancelled holder could not be cancelled in Temporal');
        }),
    ),
  );
}
