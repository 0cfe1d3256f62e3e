/**
 * The flow sweep (./admit.ts has the design): any API process may run it at once with the others.
 * `due`: throttled and debounced runs whose time came move to `running` (FOR UPDATE SKIP LOCKED: a row
 * goes to one sweeper) and start. `keys`: concurrency keys with queued runs are promoted under their lock
 * wherever a slot is free, which repairs a promotion lost with its process (a restart). The due part runs
 * on a short timer (startup/flow-sweeper.ts), the keys part with the start reconciler.
 */
import { ExecutionFlowRepository } from '../../db/repositories/execution-flow-repository';
import { promoteNext, startPromoted, type PromoteDeps } from './promote';

export interface FlowSweepOptions {
  /** Rows (due) or keys promoted per sweep at most (default 100). */
  batchSize?: number;
  /** Only this organization's rows (tests share one database). */
  organizationId?: string;
}

/** Starts the throttled and debounced runs that are due; answers their ids and how long each waited (seconds). */
export async function sweepDue(deps: PromoteDeps, options: FlowSweepOptions = {}): Promise<Array<{ id: string; waitedSeconds: number }>> {
  const rows = await new ExecutionFlowRepository(deps.dataSource.manager).promoteDue({
    temporalNamespace: deps.temporal.options.namespace,
    limit: options.batchSize ?? 100,
    organizationId: options.organizationId,
  });
  await startPromoted(deps, rows);
  return rows.map((row) => ({ id: row.id, waitedSeconds: ((row.admittedAt ?? new Date()).getTime() - row.createdAt.getTime()) / 1000 }));
}

/** The queued runs of the namespace and the oldest one's age (the metrics' gauges). */
export function queuedGauge(deps: Pick<PromoteDeps, 'dataSource' | 'temporal'>): Promise<{ queued: number; oldestSeconds: number }> {
  return new ExecutionFlowRepository(deps.dataSource.manager).queuedGauge(deps.temporal.options.namespace);
}

/** Promotes and starts queued runs of every concurrency key with a free slot; answers their ids. */
export async function sweepQueuedKeys(deps: PromoteDeps, options: FlowSweepOptions = {}): Promise<string[]> {
  const keys = await new ExecutionFlowRepository(deps.dataSource.manager).queuedKeys({
    temporalNamespace: deps.temporal.options.namespace,
    limit: options.batchSize ?? 100,
    organizationId: options.organizationId,
  });
  const started: string[] = [];
  for (const key of keys) started.push(...(await promoteNext(deps, key)));
  return started;
}
