/**
 * The wait behind GET /workflows/executions/{id}?wait=30s: a client that
 * started an execution gets its result in one request instead of a loop of
 * reads. It holds the request while the execution's row says `running`: until
 * it ended, or it waits on a signal (`waiting`: nothing changes until someone
 * acts, so holding on would only delay the one who must act), or the time
 * passes, the client goes away or the API shuts down (the hub closes); the
 * route then answers what a read without `wait` answers at that moment.
 *
 * It reads PostgreSQL only, never Temporal: the event hub wakes it on every
 * new event of the execution (the end event is inserted by the very statement
 * that writes the final status, and a wait's opening event is written with the
 * status that says `waiting`, so once it is notified the row says so), and a
 * slow re-read besides, so a lost notification costs at most that interval. It
 * holds a connection as an event stream does, so it takes one of the caller's
 * stream slots (stream-slot.ts) for as long as it waits.
 */
import type { ServerResponse } from 'node:http';
import type { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import type { ExecutionDeps } from './deps';
import { EVENT_FALLBACK_POLL_MS, type StreamOwner } from './event-hub';
import { takeStreamSlot } from './stream-slot';

export interface EndWait {
  /** Whose slot the wait takes. */
  owner: StreamOwner;
  /** The longest wait, in milliseconds. */
  ms: number;
  /**
   * The response to the waiting client: its 'close' before an answer means the client went away.
   * (Not the request's: that one also closes once its body has been read, with the client still there.)
   */
  response: ServerResponse;
}

/**
 * Resolves once the execution is no longer running (ended, waiting on a signal, or gone), `ms`
 * passed, the client left or the hub closed; throws the 429 of stream-slot.ts when the caller's
 * share is full. The caller has authorized the read already.
 */
export async function waitWhileRunning(
  deps: Pick<ExecutionDeps, 'dataSource' | 'eventHub' | 'limits'>,
  execution: Pick<ExecutionEntity, 'id' | 'organizationId'>,
  { owner, ms, response }: EndWait,
): Promise<void> {
  const hub = deps.eventHub;
  if (ms <= 0 || hub.isClosed || response.destroyed) return;
  takeStreamSlot(deps, owner);
  const executions = new ExecutionRepository(deps.dataSource.manager);
  const deadline = Date.now() + ms;
  // Set by a wake; each read clears it first, so a notification that lands during a read is not slept through.
  let woken = false;
  let interrupt = (): void => undefined;
  const wake = () => {
    woken = true;
    interrupt();
  };
  // Followed, and listening, before the first read, so no end committed after a read can slip past the nap that follows it.
  const unfollow = hub.follow(execution.id, wake);
  response.once('close', wake);
  try {
    await hub.listening();
    while (!hub.isClosed && !response.destroyed && Date.now() < deadline) {
      woken = false;
      const status = await executions.statusInOrganization(execution.organizationId, execution.id);
      if (status !== 'running') return;
      if (!woken) await nap(Math.min(EVENT_FALLBACK_POLL_MS, deadline - Date.now()), (stop) => (interrupt = stop));
    }
  } finally {
    interrupt = () => undefined;
    unfollow();
    response.off('close', wake);
    hub.closeStream(owner);
  }
}

/** Sleeps `ms`, or less when the function handed to `onStop` is called; the timer never outlives it. */
function nap(ms: number, onStop: (stop: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(stop, Math.max(0, ms));
    onStop(stop);
  });
}
