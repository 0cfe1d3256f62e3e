/** `temporal.api.testservice.v1.TestService`: Temporal's time-skipping controls. */
import type { Engine } from './engine';
import type { Handler } from './grpc-server';
import { failedPrecondition } from './errors';
import { api, ms, ts } from './proto';

function sleepUntil(engine: Engine, at: number): Promise<void> {
  return new Promise((resolve) => {
    engine.clock.at(at, resolve);
  });
}

export function testServiceHandlers(engine: Engine): Record<string, Handler> {
  const clock = engine.clock;
  return {
    LockTimeSkipping: () => {
      clock.lock();
      return {};
    },
    UnlockTimeSkipping: () => {
      if (!clock.canUnlock()) throw failedPrecondition('Time skipping is not locked');
      clock.unlock();
      return {};
    },
    Sleep: async (req: unknown) => {
      await sleepUntil(engine, clock.now() + ms((req as api.testservice.v1.ISleepRequest).duration));
      return {};
    },
    SleepUntil: async (req: unknown) => {
      await sleepUntil(engine, ms((req as api.testservice.v1.ISleepUntilRequest).timestamp));
      return {};
    },
    UnlockTimeSkippingWithSleep: async (req: unknown) => {
      const at = clock.now() + ms((req as api.testservice.v1.ISleepRequest).duration);
      if (!clock.canUnlock()) throw failedPrecondition('Time skipping is not locked');
      clock.unlock();
      try {
        await sleepUntil(engine, at);
      } finally {
        clock.lock();
      }
      return {};
    },
    GetCurrentTime: () => ({ time: ts(clock.now()) }),
  };
}
