/**
 * The retention sweep's timer (executions/retention-sweep.ts says what a sweep
 * removes, and why replicas sweeping at once never collide): every API process
 * sweeps every RETENTION_SWEEP_INTERVAL_SECONDS on an unref'd timer, the next
 * sweep scheduled only when the previous one ended; stopped with the service
 * (a sweep under way ends after its current batch).
 */
import type { Logger } from '../config/logger';
import { RetentionSweeper, type RetentionCounts, type RetentionSweepOptions } from '../executions';

export interface RunningRetentionSweeper {
  /** Stops the timer and waits for a sweep in flight (which ends after its current batch). */
  stop(): Promise<void>;
}

export function startRetentionSweeper(
  options: RetentionSweepOptions & { intervalMs: number; logger: Logger; onSwept?: (counts: RetentionCounts) => void },
): RunningRetentionSweeper {
  const sweeper = new RetentionSweeper(options);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      const started = Date.now();
      sweeping = sweeper
        .sweepOnce(new Date())
        .then(
          (counts) => {
            options.onSwept?.(counts);
            if (Object.entries(counts).some(([name, rows]) => name !== 'batches' && rows > 0))
              options.logger.info({ ...counts, ms: Date.now() - started }, 'retention sweep removed expired rows');
          },
          (error: unknown) => options.logger.warn({ err: error }, 'retention sweep failed; the next sweep retries'),
        )
        .finally(() => {
          sweeping = undefined;
          schedule();
        });
    }, options.intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      sweeper.stop();
      clearTimeout(timer);
      await sweeping;
    },
  };
}
