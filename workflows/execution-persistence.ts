/**
 * Persistence of an execution from inside the workflow: the local activities
 * that write its record, and the batcher that collects step events and log
 * entries and flushes them through `recordEvents` whenever the workflow is
 * about to block, so a graph of pure steps costs one round trip, not one per
 * step. Numbering (logs per execution and per step, events densely) goes on
 * across continue-as-new.
 */
import { CancellationScope, condition, isCancellation, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { EventBatch, NumberedLog, RunProgress, TailNumbering } from '../activities/execution-activity-types';
import { followsRule, type ContinuedRun, type ExecutionInput, type LogEntryDraft, type StepEvent, type StepRecord } from './engine';
import type { LocalActivityLane } from './local-activity-lane';

export const persistence = proxyLocalActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '200 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 20 },
});

/** At most this many passes of a run's conditions, or events and log lines, go by before pending records are written. */
const MAX_PASSES_BEFORE_WRITE = 50;
const MAX_PENDING_BEFORE_WRITE = 200;
/**
 * A running fan-out's progress is written on its own at most this many times (each write a local activity):
 * when another tenth of its items is done. Batches written anyway carry the newest progress too.
 */
const FAN_OUT_WRITES = 10;

type FanOut = { done: number; total: number; failed: number };

/**
 * Resolves once the microtasks now queued (and those they queue) have run: the SDK checks blocked conditions only
 * after the workflow's microtasks drain, and this one is false when asked at once (the SDK resolves a condition that
 * holds at once without waiting: a single tick, in which a step between two awaits has not moved on yet).
 */
function afterThisPass(): Promise<void> {
  let asked = false;
  return condition(() => {
    const drained = asked;
    asked = true;
    return drained;
  });
}

/** The numbering a continued-as-new run carries on from. */
export type Numbering = Pick<ContinuedRun, 'logSeq' | 'stepSeqs' | 'eventSeq'>;

export class EventBatcher {
  private readonly pendingEvents: StepEvent[] = [];
  private readonly pendingLogs: NumberedLog[] = [];
  private seq: number;
  private readonly stepSeqs: Record<string, number>;
  /** Step events are numbered densely; the number is the event stream's id. */
  private nextEventSeq: number;
  private finished = false;
  /** The last light step's activity wrote the run's end with the step's last records (rule `end-with-last-light-step`). */
  endWrittenByStep = false;
  private keepLast = false;
  /** What a batch reports of the run, and what was last written of it (a batch carries only what changed). */
  private progress?: () => { variables: Record<string, unknown>; waiting: boolean };
  /** A run starts recorded as running with no variables (`{}` on read); a continued run ended its previous one running. */
  private writtenVariables = '{}';
  private writtenWaiting = false;
  /** Steps running now (from their events), and the fan-out progress last written of each (rules 4). */
  private readonly running = new Map<string, { run: number; startedAt: string; written?: FanOut }>();
  private fanOutOf?: (stepId: string, run: number) => FanOut | undefined;

  constructor(
    private readonly input: ExecutionInput,
    private readonly lane: LocalActivityLane,
  ) {
    this.seq = input.continued?.logSeq ?? 0;
    this.stepSeqs = { ...input.continued?.stepSeqs };
    this.nextEventSeq = input.continued?.eventSeq ?? 0;
  }

  /** Position of the next event (the end event's, once the walk is over). */
  get eventSeq(): number {
    return this.nextEventSeq;
  }

  /** Reports the run's variables and waiting status with the batches (reads of the execution answer from them). */
  reportProgress(progress: () => { variables: Record<string, unknown>; waiting: boolean }): void {
    this.progress = progress;
  }

  /**
   * Reports a running step's fan-out progress (the live `metadata.fanOut` of its record), so reads show it while
   * the step runs (rules 4: the writes it adds change the run's history).
   */
  reportFanOuts(fanOutOf: (stepId: string, run: number) => FanOut | undefined): void {
    if (followsRule(this.input, 'fan-out-progress-live')) this.fanOutOf = fanOutOf;
  }

  event(event: StepEvent): void {
    this.pendingEvents.push(event);
    if (event.type === 'step.started') this.running.set(event.stepId, { run: event.run, startedAt: event.at });
    else if (event.type === 'step.completed' || event.type === 'step.failed' || event.type === 'step.skipped')
      this.running.delete(event.stepId);
  }

  log(entry: LogEntryDraft): void {
    this.pendingLogs.push({ ...entry, seq: this.seq++, stepSeq: (this.stepSeqs[entry.stepId] = (this.stepSeqs[entry.stepId] ?? -1) + 1) });
  }

  /** Where the step's next records go on: for a light step's activity that writes them with the run's end. */
  tailNumbering(stepId: string): TailNumbering {
    return { firstEventSeq: this.nextEventSeq, logSeq: this.seq, stepSeq: (this.stepSeqs[stepId] ?? -1) + 1 };
  }

  numbering(): Numbering {
    return { logSeq: this.seq, stepSeqs: this.stepSeqs, eventSeq: this.nextEventSeq };
  }

  /** Writes whatever is pending (one local activity, in the run's lane), if anything is. */
  flush(): Promise<void> {
    return this.lane.run(() => this.write());
  }

  private async write(): Promise<void> {
    const batch = this.take();
    if (batch) await persistence.recordEvents(batch);
  }

  /**
   * What is pending, numbered, as one batch to write (or undefined): for the batcher's own write, or for a
   * light step, whose local activity writes it with the call's result (one local activity instead of two,
   * one commit). Taken inside the lane, so batches are written in order.
   */
  take(): EventBatch | undefined {
    const pending = this.pendingLogs.length > 0 || this.pendingEvents.length > 0;
    // Progress alone is written when it is due; with other records, whenever it changed.
    const liveSteps = pending || this.fanOutDue() ? this.takeFanOuts() : [];
    if (!pending && liveSteps.length === 0) return undefined;
    const logs = this.pendingLogs.splice(0);
    const events = this.pendingEvents.splice(0);
    const firstEventSeq = this.nextEventSeq;
    this.nextEventSeq += events.length;
    return {
      executionId: this.input.executionId,
      organizationId: this.input.organizationId,
      firstEventSeq,
      events,
      logs,
      ...this.changedProgress(),
      ...(liveSteps.length > 0 ? { liveSteps } : {}),
    };
  }

  /** Whether a running fan-out has done another tenth of its items since its progress was last written. */
  private fanOutDue(): boolean {
    if (!this.fanOutOf) return false;
    for (const [stepId, step] of this.running) {
      const fanOut = this.fanOutOf(stepId, step.run);
      if (!fanOut) continue;
      const stride = Math.max(1, Math.ceil(fanOut.total / FAN_OUT_WRITES));
      if (fanOut.done - (step.written?.done ?? 0) >= stride) return true;
    }
    return false;
  }

  /** The running records whose fan-out progress changed since it was last written, now marked written. */
  private takeFanOuts(): StepRecord[] {
    if (!this.fanOutOf) return [];
    const records: StepRecord[] = [];
    for (const [stepId, step] of this.running) {
      const fanOut = this.fanOutOf(stepId, step.run);
      if (!fanOut || (step.written && step.written.done === fanOut.done && step.written.failed === fanOut.failed)) continue;
      step.written = { ...fanOut };
      records.push({
        stepId,
        status: 'running',
        run: step.run,
        items: [],
        outputs: {},
        activePorts: [],
        startedAt: step.startedAt,
        metadata: { fanOut: { ...fanOut } },
      });
    }
    return records;
  }

  /**
   * The run's variables and waiting status, each when it changed since the last batch: only steps change
   * them, and every step adds events, so a batch is taken whenever they change.
   */
  private changedProgress(): { progress?: RunProgress } {
    if (!this.progress) return {};
    const { variables, waiting } = this.progress();
    const progress: RunProgress = {};
    const json = JSON.stringify(variables);
    if (json !== this.writtenVariables) progress.variables = variables;
    if (waiting !== this.writtenWaiting) progress.waiting = waiting;
    this.writtenVariables = json;
    this.writtenWaiting = waiting;
    return progress.variables !== undefined || progress.waiting !== undefined ? { progress } : {};
  }

  /** Writes a batch a light step took when its call failed before writing it (idempotent: written at most once in effect). */
  async writeAgain(batch: EventBatch): Promise<void> {
    await CancellationScope.nonCancellable(() => persistence.recordEvents(batch));
  }

  /**
   * Flushes whenever something is pending, until `finish` (then once more, unless the last batch is kept).
   * Resolves when the last flush is done; on cancellation it stops quietly and
   * the caller makes the final flush in a non-cancellable scope.
   */
  async flushUntilFinished(): Promise<void> {
    try {
      while (!this.finished) {
        await condition(() => this.pendingEvents.length > 0 || this.pendingLogs.length > 0 || this.finished || this.fanOutDue());
        if (followsRule(this.input, 'records-when-blocked')) await this.blocked();
        if (this.finished && this.keepLast) return;
        await this.flush();
      }
      if (!this.keepLast) await this.flush();
    } catch (error) {
      if (!isCancellation(error)) throw error;
    }
  }

  /**
   * Resolves once a pass of the run's conditions leaves what is pending unchanged: the run waits on something
   * outside it (a timer, an activity, a signal), not between two of its own steps, whose progress spans
   * several passes. Without it, a graph of pure steps was written at its first pass and again with its end: two
   * local activities instead of one (rules 3). Bounded, so a long run of pure steps is still written as it goes.
   */
  private async blocked(): Promise<void> {
    const nextPass = followsRule(this.input, 'records-when-drained') ? afterThisPass : () => condition(() => true);
    for (let passes = 0, seen = -1; !this.finished && passes < MAX_PASSES_BEFORE_WRITE; passes++) {
      const pending = this.pendingEvents.length + this.pendingLogs.length;
      if (pending === seen || pending >= MAX_PENDING_BEFORE_WRITE) return;
      seen = pending;
      await nextPass();
    }
  }

  /** Ends the flushing; with `keepLast`, what is still pending stays for the caller to `take` (written with the end). */
  finish(options: { keepLast?: boolean } = {}): void {
    this.finished = true;
    this.keepLast = options.keepLast ?? false;
  }
}
