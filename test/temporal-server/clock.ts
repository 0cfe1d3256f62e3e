/**
 * The server's clock: real time plus an offset, with timers in that time.
 * In time-skipping mode the offset jumps to the next timer whenever skipping is
 * unlocked (Temporal's TestService lock counter is zero) and nothing is busy
 * (no workflow task or activity task pending or running).
 */
export interface TimerHandle {
  cancel(): void;
}

interface Entry {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

export class Clock {
  private offset = 0;
  private seq = 0;
  private entries: Entry[] = [];
  private realTimer: NodeJS.Timeout | undefined;
  private realTimerAt = Infinity;
  private skipQueued = false;
  /** TestService lock count; skipping happens only at zero. */
  lockCount: number;
  private readonly busy = new Set<object>();
  /** Unlocks that borrowed a busy task's hold (`env.sleep()` inside an activity, as with Temporal's test server). */
  private borrowed = 0;

  constructor(readonly timeSkipping: boolean) {
    this.lockCount = timeSkipping ? 1 : 0;
  }

  now(): number {
    return Date.now() + this.offset;
  }

  /** Runs `fn` when the clock reaches `at` (ms). */
  at(at: number, fn: () => void): TimerHandle {
    const entry: Entry = { at, seq: this.seq++, fn, cancelled: false };
    // keep sorted by (at, seq); insertion from the end is cheap for mostly increasing times
    let i = this.entries.length;
    while (i > 0 && this.entries[i - 1].at > at) i--;
    this.entries.splice(i, 0, entry);
    this.arm();
    return {
      cancel: () => {
        if (entry.cancelled) return;
        entry.cancelled = true;
        const index = this.entries.indexOf(entry);
        if (index >= 0) this.entries.splice(index, 1);
      },
    };
  }

  after(delayMs: number, fn: () => void): TimerHandle {
    return this.at(this.now() + Math.max(0, delayMs), fn);
  }

  /** Marks something (a task) as in progress; skipping waits until it is released. */
  hold(token: object): void {
    this.busy.add(token);
  }

  release(token: object): void {
    if (this.busy.delete(token) && this.busy.size <= this.borrowed) this.scheduleSkip();
  }

  lock(): void {
    if (this.borrowed > 0) this.borrowed--;
    else this.lockCount++;
  }

  /** Whether an unlock is balanced by a lock or by a task in progress (whose hold it then borrows). */
  canUnlock(): boolean {
    return this.lockCount > 0 || this.busy.size > this.borrowed;
  }

  unlock(): void {
    if (this.lockCount > 0) this.lockCount--;
    else if (this.busy.size > this.borrowed) this.borrowed++;
    else throw new Error('time skipping is not locked');
    this.scheduleSkip();
  }

  /** Moves the clock forward (time skipping only). */
  advanceTo(at: number): void {
    if (at > this.now()) this.offset += at - this.now();
    this.fireDue();
  }

  private canSkip(): boolean {
    return this.timeSkipping && this.lockCount === 0 && this.busy.size <= this.borrowed;
  }

  private scheduleSkip(): void {
    if (!this.timeSkipping || this.skipQueued) return;
    this.skipQueued = true;
    setImmediate(() => {
      this.skipQueued = false;
      this.fireDue();
      if (this.canSkip() && this.entries.length > 0) {
        const next = this.entries[0].at;
        if (next > this.now()) this.offset += next - this.now();
        this.fireDue();
      }
    });
  }

  private fireDue(): void {
    const now = this.now();
    while (this.entries.length > 0 && this.entries[0].at <= now) {
      const entry = this.entries.shift() as Entry;
      entry.cancelled = true;
      try {
        entry.fn();
      } catch (error) {
        console.error('[temporal-stand-in] timer callback failed', error);
      }
    }
    this.arm(true);
    if (this.canSkip() && this.entries.length > 0) this.scheduleSkip();
  }

  private arm(force = false): void {
    const next = this.entries.length > 0 ? this.entries[0].at : Infinity;
    if (next === this.realTimerAt && !force) return;
    if (this.realTimer) clearTimeout(this.realTimer);
    this.realTimer = undefined;
    this.realTimerAt = next;
    if (next === Infinity) return;
    const delay = Math.min(Math.max(0, next - this.now()), 2 ** 31 - 1);
    this.realTimer = setTimeout(() => {
      this.realTimerAt = Infinity;
      this.realTimer = undefined;
      this.fireDue();
    }, delay);
    this.realTimer.unref();
    if (this.canSkip()) this.scheduleSkip();
  }

  stop(): void {
    if (this.realTimer) clearTimeout(this.realTimer);
    this.entries = [];
  }
}
