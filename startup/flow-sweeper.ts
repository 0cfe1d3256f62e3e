/**
 * The flow sweep's short timer (executions/flow/sweep.ts): every API process starts the throttled and
 * debounced runs whose time has come, about every FLOW_SWEEP_INTERVAL_MS (docs/configuration.md); several
 * replicas sweeping at once is safe (SKIP LOCKED). Concurrency keys are swept with the start reconciler.
 */
import type { Logger } from 'pino';
import { FLOW_SWEEP_INTERVAL_MS, queuedGauge, sweepDue, type PromoteDeps } from '../executions';
import { repeatEvery, type RepeatingTimer } from './repeating-timer';

export function startFlowSweeper(
  deps: PromoteDeps & { logger: Logger },
  options: {
    intervalMs?: number;
    /** After each sweep: the namespace's queue (count, oldest age) and how long each run it started had waited. */
    onSwept?: (queue: { queued: number; oldestSeconds: number }, waitedSeconds: number[]) => void;
  } = {},
): RepeatingTimer {
  return repeatEvery(options.intervalMs ?? FLOW_SWEEP_INTERVAL_MS, async () => {
    try {
      const started = await sweepDue(deps);
      if (options.onSwept)
        options.onSwept(
          await queuedGauge(deps),
          started.map((run) => run.waitedSeconds),
        );
    } catch (error) {
      deps.logger.warn({ err: error }, 'flow sweep failed; the next sweep retries');
    }
  });
}
