/**
 * Ending a run, for every path that writes an execution's end (the workflow's finish activity, terminate,
 * the sweeps): the end is written as ever (ExecutionRepository.finish), and when the run held a
 * concurrency slot the next queued run of its key is promoted and started right away (./promote.ts).
 * Without Temporal at hand, or when promotion fails, the flow sweep promotes it (./sweep.ts).
 */
import type { DataSource } from 'typeorm';
import type { ExecutionStatus } from '../../db/entities/execution';
import { ExecutionRepository, type FlowScope } from '../../db/repositories/execution-repository';
import { promoteNext, type PromoteDeps } from './promote';

export interface EndDeps {
  dataSource: DataSource;
  /** Where promoted runs start; absent, promotion is left to the flow sweep. */
  starts?: PromoteDeps;
  logger?: PromoteDeps['logger'];
}

export async function endRun(
  deps: EndDeps,
  executionId: string,
  status: ExecutionStatus,
  outputs: Record<string, unknown> | null,
  error: Record<string, unknown> | null,
  eventSeq?: number,
): Promise<FlowScope | undefined> {
  const scope = await new ExecutionRepository(deps.dataSource.manager).finish(executionId, status, outputs, error, eventSeq);
  await handOnSlot(deps, scope);
  return scope;
}

/** After an end written elsewhere (the workflow's last batch with its end): the slot the run held goes to the next queued run. */
export async function handOnSlot(deps: EndDeps, scope: FlowScope | undefined): Promise<void> {
  if (!scope || !deps.starts) return;
  await promoteNext(deps.starts, scope).catch((error_: unknown) =>
    (deps.logger ?? deps.starts?.logger)?.warn(
      { err: error_, ...scope },
      'the next queued run could not be promoted; the flow sweep retries',
    ),
  );
}
