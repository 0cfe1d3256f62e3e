/**
 * The run's clock. `real` waits as the worker would; `instant` (the default)
 * lets delays, wait timeouts and retry back-off take no wall time: each timer
 * fires on the next turn of the event loop, earliest first, and moves the
 * run's virtual time forward by its delay, so `now()` still reads as if the
 * time had passed.
 */
export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export type ClockMode = 'instant' | 'real';

export function createClock(mode: ClockMode = 'instant'): Clock {
  if (mode === 'real') return { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms))) };
  if (mode !== 'instant') throw new TypeError(`clock must be 'instant' or 'real' (got ${JSON.stringify(mode)})`);
  return instantClock();
}

function instantClock(): Clock {
  let offset = 0;
  let scheduled = false;
  const timers: Array<{ at: number; seq: number; resolve: () => void }> = [];
  let seq = 0;
  const now = () => Date.now() + offset;
  const fireNext = () => {
    scheduled = false;
    timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    const timer = timers.shift();
    if (!timer) return;
    offset += Math.max(0, timer.at - now());
    timer.resolve();
    schedule();
  };
  const schedule = () => {
    if (scheduled || timers.length === 0) return;
    scheduled = true;
    setImmediate(fireNext);
  };
  return {
    now,
    sleep: (ms) =>
      new Promise<void>((resolve) => {
        timers.push({ at: now() + Math.max(0, ms), seq: seq++, resolve });
        schedule();
      }),
  };
}
