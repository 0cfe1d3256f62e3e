/** Activities used by the conformance suite. */
import { CompleteAsyncError, Context, CancelledFailure } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';

export interface ActivityProbe {
  attempts: Record<string, number>;
  heartbeatsSeen: unknown[];
  cancelled: string[];
}

export function createActivities(probe: ActivityProbe) {
  const count = (key: string): number => {
    probe.attempts[key] = (probe.attempts[key] ?? 0) + 1;
    return probe.attempts[key];
  };
  return {
    echo(value: string): Promise<string> {
      return Promise.resolve(`echo:${value}`);
    },
    failTimes(key: string, failures: number): Promise<string> {
      const attempt = count(key);
      if (attempt <= failures) return Promise.reject(ApplicationFailure.retryable(`attempt ${attempt} fails`, 'Flaky'));
      return Promise.resolve(`ok after ${attempt}`);
    },
    failNonRetryable(key: string): Promise<string> {
      count(key);
      return Promise.reject(ApplicationFailure.nonRetryable('permanent problem', 'Permanent'));
    },
    failWithType(key: string, type: string): Promise<string> {
      count(key);
      return Promise.reject(ApplicationFailure.create({ message: 'typed failure', type }));
    },
    async sleep(ms: number): Promise<string> {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'slept';
    },
    /** Heartbeats every 50 ms with a counter, resuming from the last heartbeat details. */
    async heartbeater(key: string, beats: number): Promise<number> {
      const attempt = count(key);
      const ctx = Context.current();
      const start = (ctx.info.heartbeatDetails as number | undefined) ?? 0;
      probe.heartbeatsSeen.push(ctx.info.heartbeatDetails);
      for (let i = start; i < beats; i++) {
        ctx.heartbeat(i + 1);
        await ctx.sleep(50);
        if (attempt === 1 && i === 2) throw ApplicationFailure.retryable('die after 3 beats');
      }
      return start;
    },
    /** Heartbeats until cancelled. */
    async waitForCancel(key: string): Promise<string> {
      count(key);
      const ctx = Context.current();
      try {
        for (;;) {
          ctx.heartbeat();
          await ctx.sleep(50);
        }
      } catch (error) {
        if (error instanceof CancelledFailure) probe.cancelled.push(key);
        throw error;
      }
    },
    /** Completed later from outside, by id or task token. */
    completeLater(key: string): Promise<string> {
      count(key);
      return Promise.reject(new CompleteAsyncError());
    },
    /** Stops heartbeating: hits its heartbeat timeout. */
    async silent(key: string, ms: number): Promise<string> {
      count(key);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'late';
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
