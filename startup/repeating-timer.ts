/**
 * Background work repeated on a timer: every `intervalMs` (the first run one
 * interval after start) on an unref'd timer, so it never holds the process
 * open; the next run is scheduled only when the previous one has ended, never
 * two at once. `stop()` clears the timer and waits for a run in flight.
 */
export interface RepeatingTimer {
  stop(): Promise<void>;
}

/** `work` must not reject: it handles (logs) its own failures, and the next run retries. */
export function repeatEvery(intervalMs: number, work: () => Promise<void>): RepeatingTimer {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = work().finally(() => {
        running = undefined;
        schedule();
      });
    }, intervalMs);
    timer.unref();
  };
  schedule();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
