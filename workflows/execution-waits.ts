/**
 * The open waits of an execution: steps parked on a signal (or a webhook's
 * callback), each released once, by the first matching signal or its timer.
 * Opening and releasing a wait is recorded as a step event, so
 * POST /workflows/signals/{name} can find the execution by correlation key and
 * reads of the execution show its open waits without asking the workflow.
 */
import { condition, uuid4 } from '@temporalio/workflow';
import type { StepEvent, WaitRequest, WaitResult } from './engine';
import type { PendingWait } from './messages';

export interface OpenWait extends PendingWait {
  release(result: WaitResult): void;
}

/** A signal that arrived before any wait (signal-with-start): the first matching wait takes it. */
export interface BufferedSignal {
  name: string;
  payload: unknown;
  signalId: string;
  correlationKey?: string;
}

export class OpenWaits {
  private readonly waits: OpenWait[] = [];
  private readonly buffered: BufferedSignal[] = [];

  constructor(private readonly onEvent: (event: StepEvent) => void) {}

  get size(): number {
    return this.waits.length;
  }

  /** The first open wait on this name (and correlation key, when one is given). */
  match(name: string, correlationKey?: string): OpenWait | undefined {
    return this.waits.find(
      (wait) => wait.signalNames.includes(name) && (correlationKey === undefined || wait.correlationKey === correlationKey),
    );
  }

  /** Keeps a signal for the first wait on its name (and correlation key) that opens. */
  buffer(signal: BufferedSignal): void {
    this.buffered.push(signal);
  }

  /** The open waits as the state query shows them. */
  pending(): PendingWait[] {
    return this.waits.map((wait) => ({
      waitId: wait.waitId,
      stepId: wait.stepId,
      signalNames: wait.signalNames,
      correlationKey: wait.correlationKey,
      since: wait.since,
      timeoutAt: wait.timeoutAt,
      callbackUrl: wait.callbackUrl,
    }));
  }

  /** Opens a wait and resolves when a signal releases it or its timeout (a durable timer) ends it. */
  async wait(request: WaitRequest): Promise<WaitResult> {
    let result: WaitResult | undefined;
    const since = Date.now();
    const wait: OpenWait = {
      waitId: uuid4(),
      stepId: request.stepId,
      signalNames: request.signalNames,
      correlationKey: request.correlationKey,
      since: new Date(since).toISOString(),
      timeoutAt: request.timeoutMs !== undefined ? new Date(since + request.timeoutMs).toISOString() : undefined,
      callbackUrl: request.callbackUrl,
      release: (released) => {
        if (result) return;
        result = released;
        this.waits.splice(this.waits.indexOf(wait), 1);
        this.onEvent({ type: 'wait.ended', stepId: wait.stepId, waitId: wait.waitId, at: new Date().toISOString() });
      },
    };
    this.waits.push(wait);
    // Recorded (by the flusher): for POST /workflows/signals/{name} by correlation key, and for reads of the execution.
    this.onEvent({
      type: 'wait.started',
      stepId: wait.stepId,
      waitId: wait.waitId,
      signalNames: wait.signalNames,
      correlationKey: wait.correlationKey,
      at: wait.since,
      timeoutAt: wait.timeoutAt,
      callbackUrl: wait.callbackUrl,
    });
    const early = this.buffered.findIndex(
      (signal) =>
        wait.signalNames.includes(signal.name) && (signal.correlationKey === undefined || signal.correlationKey === wait.correlationKey),
    );
    if (early >= 0) {
      const [signal] = this.buffered.splice(early, 1);
      wait.release({ timedOut: false, name: signal.name, payload: signal.payload, signalId: signal.signalId, receivedAt: wait.since });
    }
    if (request.timeoutMs === undefined) await condition(() => result !== undefined);
    else if (!(await condition(() => result !== undefined, request.timeoutMs))) wait.release({ timedOut: true });
    return result!;
  }
}
