/**
 * The retention sweep's timer (executions/retention-sweep.ts says what a sweep
 * removes, and why replicas sweeping at once never collide): every API process
 * sweeps every RETENTION_SWEEP_INTERVAL_SECONDS on an unref'd timer, the next
 * sweep scheduled only when the previous one ended; stopped with the service
 * (a sweep under way ends after its current batch).
 */
import type { Logger } from '../config/logger';
import { RetentionSweeper, type RetentionCounts, type RetentionSweepOptions } from '../executions';
import { repeatEvery } from './repeating-timer';

export interface RunningRetentionSweeper {
  /** Stops the timer and waits for a sweep in flight (which ends after its current batch). */
  stop(): Promise<void>;
}

export function startRetentionSweeper(
  options: RetentionSweepOptions & { intervalMs: number; logger: Logger; onSwept?: (counts: RetentionCounts) => void },
): RunningRetentionSweeper {
  const sweeper = new RetentionSweeper(options);
  const timer = repeatEvery(options.intervalMs, async () => {
    const started = Date.now();
    try {
      const counts = await sweeper.sweepOnce(new Date());
      options.onSwept?.(counts);
      if (Object.entries(counts).some(([name, rows]) => name !== 'batches' && rows > 0))
        options.logger.info({ ...counts, ms: Date.now() - started }, 'retention sweep removed expired rows');
    } catch (error) {
      options.logger.warn({ err: error }, 'retention sweep failed; the next sweep retries');
    }
  });
  return {
    async stop() {
      // A sweep under way ends after its current batch.
      sweeper.stop();
      await timer.stop();
    },
  };
}
