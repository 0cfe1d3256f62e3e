/**
 * The scrubber of the activity that is running, for code that sees resolved
 * values without being handed the activity's secrets: the egress spans
 * (../egress/egress-spans.ts) record the host a plugin calls, and that host may
 * be built from a secret (`http://${{ secrets.S }}.example/`). The activity
 * runs its plugin inside `withScrubber`; everything that plugin starts,
 * asynchronously too, sees the same scrubber.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Scrubber } from './scrubber';

const scope = new AsyncLocalStorage<Scrubber>();

export function withScrubber<T>(scrubber: Scrubber, run: () => T): T {
  return scope.run(scrubber, run);
}

/** The running activity's scrubber, or undefined outside any activity that resolved secrets. */
export function currentScrubber(): Scrubber | undefined {
  return scope.getStore();
}
