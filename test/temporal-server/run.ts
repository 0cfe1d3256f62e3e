/**
 * One workflow run's mutable state: its history, the workflow task in flight,
 * events buffered while a task is started, and the pending activities, timers,
 * children and updates.
 */
import type { TimerHandle } from './clock';
import {
  EventType,
  L,
  Status,
  api,
  enums,
  type HistoryEvent,
  type Memo,
  type Payload,
  type StartedAttrs,
  type WorkflowExecution,
  ts,
} from './proto';
import type { ActivityState } from './activities';
import type { UpdateState } from './updates';
import type { PendingQuery } from './queries';

export interface WftState {
  nonce: number;
  scheduledEventId: number;
  startedEventId: number;
  attempt: number;
  /** Queue the task was put on (sticky or normal). */
  queue: string;
  sticky: boolean;
  scheduledTime: number;
  startedTime: number;
  state: 'scheduled' | 'started';
  timer?: TimerHandle;
  /** Queries handed to the worker with this task (by id). */
  queryIds: string[];
  /** Update ids delivered with this task. */
  updateIds: string[];
  /**
   * A task whose Scheduled/Started events are not written (yet): a transient retry (attempt > 1)
   * or a speculative task carrying only updates. Its events appear in poll replies with their
   * would-be ids and are written only if the task's completion records something.
   */
  virtual: boolean;
  speculative: boolean;
  scheduledAttrs: api.history.v1.IWorkflowTaskScheduledEventAttributes;
  startedIdentity: string;
  startedRequestId: string;
}

export interface BufferedEntry {
  /** e.g. `timer:<id>` so a CancelTimer can drop a buffered TimerFired. */
  key?: string;
  write(): void;
}

export interface ChildState {
  initiatedEventId: number;
  startedEventId: number;
  namespace: string;
  workflowId: string;
  runId: string;
  workflowType: string;
  parentClosePolicy: enums.ParentClosePolicy;
}

export interface ParentRef {
  namespace: string;
  runId: string;
  workflowId: string;
  initiatedEventId: number;
}

export type ChangeListener = () => void;

export class WorkflowRun {
  readonly history: HistoryEvent[] = [];
  status: Status = Status.WORKFLOW_EXECUTION_STATUS_RUNNING;
  closeTime = 0;
  wft: WftState | undefined;
  wftAttempt = 1;
  lastCompletedStartedId = 0;
  /** True once any workflow task completed. */
  anyWftCompleted = false;
  buffered: BufferedEntry[] = [];
  sticky: { queue: string; scheduleToStartMs: number } | undefined;
  readonly activities = new Map<number, ActivityState>();
  readonly timers = new Map<string, { startedEventId: number; handle?: TimerHandle; fired: boolean }>();
  readonly children = new Map<number, ChildState>();
  readonly updates = new Map<string, UpdateState>();
  readonly pendingQueries: PendingQuery[] = [];
  readonly signalRequestIds = new Set<string>();
  readonly listeners = new Set<ChangeListener>();
  readonly runTimers: TimerHandle[] = [];
  cancelRequested = false;
  memo: Memo;
  searchAttributes: Record<string, Payload>;
  historySizeBytes = 0;
  /** Time the first workflow task may run (start delay / backoff). */
  executionTime: number;
  /** Run that continued this one (continue-as-new, retry, cron). */
  nextRunId = '';
  startRequestId: string;

  constructor(
    readonly namespace: string,
    readonly workflowId: string,
    readonly runId: string,
    readonly startedAttrs: StartedAttrs,
    readonly startTime: number,
    readonly parent: ParentRef | undefined,
    startRequestId: string,
  ) {
    this.memo = startedAttrs.memo ?? {};
    this.searchAttributes = { ...(startedAttrs.searchAttributes?.indexedFields ?? {}) };
    this.executionTime = startTime;
    this.startRequestId = startRequestId;
  }

  get workflowType(): string {
    return this.startedAttrs.workflowType?.name ?? '';
  }

  get taskQueue(): string {
    return this.startedAttrs.taskQueue?.name ?? '';
  }

  get firstRunId(): string {
    return this.startedAttrs.firstExecutionRunId ?? this.runId;
  }

  get execution(): WorkflowExecution {
    return { workflowId: this.workflowId, runId: this.runId };
  }

  get isOpen(): boolean {
    return this.status === Status.WORKFLOW_EXECUTION_STATUS_RUNNING;
  }

  get nextEventId(): number {
    return this.history.length + 1;
  }

  /** Appends an event now; returns its id. `attrs` holds the one `…EventAttributes` field. */
  addEvent(eventType: EventType, attrs: HistoryEvent, time: number): number {
    const eventId = this.history.length + 1;
    const event: HistoryEvent = { eventId: L(eventId), eventTime: ts(time), eventType, ...attrs };
    this.history.push(event);
    this.historySizeBytes += 64;
    return eventId;
  }

  notify(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Waits for a change (or `timeoutMs` real time); resolves false on timeout. */
  waitForChange(timeoutMs: number, onCancel?: (cb: () => void) => void): Promise<boolean> {
    return new Promise((resolve) => {
      const done = (changed: boolean): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
        resolve(changed);
      };
      const listener = (): void => done(true);
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.listeners.add(listener);
      onCancel?.(() => done(false));
    });
  }

  closeEvent(): HistoryEvent | undefined {
    return this.isOpen ? undefined : this.history[this.history.length - 1];
  }
}
