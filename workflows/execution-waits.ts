/**
 * The open waits of an execution: steps parked on a signal (or a webhook's
 * callback), each released once, by the first matching signal or its timer.
 * Opening and releasing a wait is recorded as a step event, so
 * POST /workflows/signals/{name} can find the execution by correlation key and
 * reads of the execution show its open waits without asking the workflow.
 */
import { condition, uuid4, workflowInfo } from '@temporalio/workflow';
import type { StepEvent, WaitAnswer, WaitAnswerGiven, WaitRequest, WaitResult } from './engine';
import type { PendingWait } from './messages';

export interface OpenWait extends PendingWait {
  /** A declared-answer wait (issue 42): only a delivery the API's approval gate let through answers it. */
  answer?: WaitAnswer;
  /** The answers counted so far (one per user). */
  answers: WaitAnswerGiven[];
  release(result: WaitResult): void;
}

/** A signal that arrived before any wait (signal-with-start): the first matching wait takes it. */
export interface BufferedSignal {
  name: string;
  payload: unknown;
  signalId: string;
  correlationKey?: string;
}

/**
 * How a run names its waits. The API names a declared-answer wait by its id (the approval gate read it from the
 * wait's row), so the id must come out the same on every replay, whatever else draws on the workflow's random
 * numbers: tracing's span ids do, on a worker with OTEL set. Under the `wait-ids-by-sequence` rule an id is the
 * run's id and the wait's number in it (unique across continue-as-new); older runs keep the random ids their
 * recorded rows carry.
 */
export function waitIds(bySequence: boolean): () => string {
  if (!bySequence) return () => uuid4();
  let opened = 0;
  return () => `${workflowInfo().runId}.${(opened += 1)}`;
}

export class OpenWaits {
  private readonly waits: OpenWait[] = [];
  private readonly buffered: BufferedSignal[] = [];

  constructor(
    private readonly onEvent: (event: StepEvent) => void,
    /** Called once when a declared-answer wait with `notify` opens (./approval-notice.ts). */
    private readonly onNotify?: (wait: OpenWait) => void,
    private readonly newWaitId: () => string = waitIds(false),
  ) {}

  get size(): number {
    return this.waits.length;
  }

  /**
   * The first open plain wait on this name (and correlation key, when one is given). A declared-answer wait is
   * never matched by name alone: it is answered through the approval gate, which names it ({@link byId}).
   */
  match(name: string, correlationKey?: string): OpenWait | undefined {
    return this.waits.find(
      (wait) =>
        wait.answer === undefined &&
        wait.signalNames.includes(name) &&
        (correlationKey === undefined || wait.correlationKey === correlationKey),
    );
  }

  /** The open wait with this id, when it waits on this name. */
  byId(waitId: string, name: string): OpenWait | undefined {
    return this.waits.find((wait) => wait.waitId === waitId && wait.signalNames.includes(name));
  }

  /**
   * Counts one answer to a declared-answer wait: a rejection (`approved: false`) releases it at once, else it is
   * released once `required` distinct users approved. Answers whether it was released.
   */
  answer(wait: OpenWait, given: WaitAnswerGiven, delivery: { name: string; payload: unknown }): boolean {
    wait.answers.push(given);
    this.onEvent({ type: 'wait.answered', stepId: wait.stepId, waitId: wait.waitId, ...given });
    const approvals = wait.answers.filter((answer) => answer.approved).length;
    if (given.approved && approvals < (wait.answer?.required ?? 1)) return false;
    wait.release({
      timedOut: false,
      name: delivery.name,
      payload: delivery.payload,
      signalId: given.signalId,
      receivedAt: given.at,
      answers: [...wait.answers],
    });
    return true;
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
      waitId: this.newWaitId(),
      stepId: request.stepId,
      signalNames: request.signalNames,
      correlationKey: request.correlationKey,
      since: new Date(since).toISOString(),
      timeoutAt: request.timeoutMs !== undefined ? new Date(since + request.timeoutMs).toISOString() : undefined,
      callbackUrl: request.callbackUrl,
      answer: request.answer,
      answers: [],
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
      ...(wait.answer ? { answer: wait.answer } : {}),
    });
    if (wait.answer?.notify) this.onNotify?.(wait);
    // A declared-answer wait takes no signal sent ahead of it: nobody's answer was checked.
    const early = wait.answer
      ? -1
      : this.buffered.findIndex(
          (signal) =>
            wait.signalNames.includes(signal.name) &&
            (signal.correlationKey === undefined || signal.correlationKey === wait.correlationKey),
        );
    if (early >= 0) {
      const [signal] = this.buffered.splice(early, 1);
      wait.release({ timedOut: false, name: signal.name, payload: signal.payload, signalId: signal.signalId, receivedAt: wait.since });
    }
    if (request.timeoutMs === undefined) await condition(() => result !== undefined);
    else if (!(await condition(() => result !== undefined, request.timeoutMs)))
      wait.release({ timedOut: true, ...(wait.answer ? { answers: [...wait.answers] } : {}) });
    return result!;
  }
}
