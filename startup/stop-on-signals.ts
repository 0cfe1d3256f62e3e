/**
 * How a started service stops: once, on the first SIGTERM, SIGINT or SIGHUP or when its parent process exits,
 * aborting a start still under way, then exiting with the outcome.
 */
import { leaveShutdownSignalsToCaller } from '../db/embedded-postgres';
import type { Logger } from '../config/logger';
import { watchParent } from './parent-watch';
import type { RunningService } from './service-parts';

/**
 * Stops the service once, on the first SIGTERM, SIGINT or SIGHUP or when the process that started us
 * exits (startup/parent-watch.ts), then exits 0 (1 if stopping failed). Set up before start-up
 * ends: a stop asked for while starting aborts what is under way (`starting`), then stops what
 * had started.
 */
export function stopOnSignals(service: RunningService | Promise<RunningService>, logger: Logger, starting?: AbortController): void {
  leaveShutdownSignalsToCaller();
  let started = false;
  void Promise.resolve(service).then(
    () => (started = true),
    () => undefined, // a start that fails is reported by its caller
  );
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    if (!started) starting?.abort(new Error(`stopped while starting (${reason})`));
    Promise.resolve(service).then(
      (running) =>
        running.stop().then(
          () => {
            logger.info('stopped');
            logger.flush?.();
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        ),
      // The start was aborted (or failed): it has stopped what it had started (startService's clean-up).
      () => process.exit(starting?.signal.aborted ? 0 : 1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The terminal closed: stop as on SIGTERM (by default SIGHUP kills us at once, leaving the Temporal
  // server running), without writing to the terminal that is gone.
  process.on('SIGHUP', () => {
    logger.level = 'silent';
    stop('SIGHUP');
  });
  // A parent killed without passing a signal on (npm under SIGKILL) must not leave the service serving.
  watchParent(() => stop('the parent process exited'));
}
