/**
 * An execution's state as PostgreSQL recorded it. The workflow writes its step
 * records, open waits and variables as it goes (in the batches it flushes
 * whenever it blocks), so reads never send a Temporal query: a query wakes a
 * worker and may replay the run, only to answer what is already recorded here.
 * A read shows the run as of its last flushed batch.
 */
import type { EntityManager } from 'typeorm';
import type { ExecutionEntity } from '../../db/entities/execution';
import type { ExecutionWaitEntity } from '../../db/entities/execution-wait';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import { ExecutionWaitRepository } from '../../db/repositories/execution-wait-repository';
import type { PendingWait } from '../../workflows/messages';
import { iso } from '../http/iso-date';
import { withSignedCallback } from './callback-token';
import type { ExecutionDeps } from './deps';
import { isFinished } from './live';
import { latestRecords } from './serialize';

export interface RecordedState {
  status: ExecutionEntity['status'];
  steps: Record<string, Record<string, unknown>>;
  variables: Record<string, unknown>;
  /** The steps running now, in start order. */
  currentSteps: string[];
  pendingWaits: PendingWait[];
  /** True while the execution runs (the state may still change), false once it has ended. */
  live: boolean;
}

export async function recordedState(deps: ExecutionDeps, row: ExecutionEntity): Promise<RecordedState> {
  // One snapshot: a batch that ends a step and marks the run waiting commits between separate reads, and
  // the state would say `running` with no step running. The status is read again inside it, as the row the
  // access check read is older.
  return deps.dataSource.transaction('REPEATABLE READ', async (manager) => {
    const recorded = await new ExecutionRepository(manager).statusAndVariablesOf(row.id);
    const status = recorded?.status ?? row.status;
    const runs = await new ExecutionStepRepository(manager).listOf(row.id);
    const pendingWaits = await openWaitsIn(manager, deps, { id: row.id, status });
    const steps = latestRecords(runs);
    const live = !isFinished({ status });
    const currentSteps = live
      ? runs.filter((run) => run.status === 'running' && steps[run.stepId]?.run === run.run).map((run) => run.stepId)
      : [];
    return { status, steps, variables: recorded?.variables ?? {}, currentSteps, pendingWaits, live };
  });
}

/** The open waits of a running execution, oldest first, webhook callbacks signed; none once it has ended. */
export function openWaits(deps: ExecutionDeps, row: ExecutionEntity): Promise<PendingWait[]> {
  return openWaitsIn(deps.dataSource.manager, deps, row);
}

async function openWaitsIn(
  manager: EntityManager,
  deps: ExecutionDeps,
  row: Pick<ExecutionEntity, 'id' | 'status'>,
): Promise<PendingWait[]> {
  if (isFinished(row)) return [];
  const rows = await new ExecutionWaitRepository(manager).openOf(row.id);
  return rows.map((wait) => withSignedCallback(deps.callbackKey, row.id, pendingWait(wait)));
}

function pendingWait(wait: ExecutionWaitEntity): PendingWait {
  return {
    waitId: wait.waitId,
    stepId: wait.stepId,
    signalNames: wait.signalNames,
    ...(wait.correlationKey !== null ? { correlationKey: wait.correlationKey } : {}),
    since: iso(wait.since),
    ...(wait.timeoutAt !== null ? { timeoutAt: iso(wait.timeoutAt) } : {}),
    ...(wait.callbackUrl !== null ? { callbackUrl: wait.callbackUrl } : {}),
  };
}
