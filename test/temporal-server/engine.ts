/**
 * The in-memory store and the primitives every RPC builds on: finding runs,
 * delivering workflow-visible events (appended, or buffered while a workflow
 * task is started) and scheduling workflow tasks.
 */
import { Clock } from './clock';
import { notFound } from './errors';
import { Namespaces } from './namespaces';
import { EventType, TimeoutType, dur, enums, ms, ts, type HistoryEvent, L } from './proto';
import { TaskQueues, type QueuedTask } from './task-queues';
import { WorkflowRun, type BufferedEntry } from './run';
import type { PendingQuery } from './queries';

export interface EngineOptions {
  timeSkipping: boolean;
  /** Longest a task-queue poll waits (real ms) before the empty reply. */
  pollTimeoutMs: number;
  /** Soft timeout of history / update long polls (real ms). */
  longPollTimeoutMs: number;
}

export interface WftTask extends QueuedTask {
  kind: 'wft';
  run: WorkflowRun;
  nonce: number;
}

export interface QueryTask extends QueuedTask {
  kind: 'query';
  query: PendingQuery;
}

export interface ActivityTask extends QueuedTask {
  kind: 'activity';
  run: WorkflowRun;
  scheduledEventId: number;
  nonce: number;
}

export type Task = WftTask | QueryTask | ActivityTask;

export class Engine {
  readonly clock: Clock;
  readonly queues = new TaskQueues<Task>();
  readonly namespaces = new Namespaces();
  /** `namespace\0workflowId` → runs, oldest first; the last one is current. */
  readonly executions = new Map<string, WorkflowRun[]>();
  readonly runs = new Map<string, WorkflowRun>();
  /** Sticky queue → runs sticky to it. */
  readonly stickyRuns = new Map<string, Set<WorkflowRun>>();
  /** Sticky queues whose worker shut down (a late completion must not re-stick to them). */
  readonly deadStickyQueues = new Set<string>();
  /** Called when a run closes (schedules watch their workflows). */
  readonly closeListeners = new Set<(run: WorkflowRun) => void>();
  /** `namespace\0kind\0queue` → poller identity → last poll time (DescribeTaskQueue). */
  readonly pollers = new Map<string, Map<string, number>>();
  /** Queries awaiting an answer, by id. */
  readonly queries = new Map<string, PendingQuery>();
  private nonceSeq = 0;

  constructor(readonly options: EngineOptions) {
    this.clock = new Clock(options.timeSkipping);
    this.namespaces.register('default');
  }

  now(): number {
    return this.clock.now();
  }

  nextNonce(): number {
    return ++this.nonceSeq;
  }

  recordPoller(namespace: string, kind: 'workflow' | 'activity', queue: string, identity: string): void {
    const key = `${namespace}\u0000${kind}\u0000${queue}`;
    let map = this.pollers.get(key);
    if (!map) {
      map = new Map();
      this.pollers.set(key, map);
    }
    map.set(identity, Date.now());
  }

  addRun(run: WorkflowRun): void {
    const key = `${run.namespace}\u0000${run.workflowId}`;
    const list = this.executions.get(key) ?? [];
    list.push(run);
    this.executions.set(key, list);
    this.runs.set(run.runId, run);
  }

  deleteRun(run: WorkflowRun): void {
    const key = `${run.namespace}\u0000${run.workflowId}`;
    const list = (this.executions.get(key) ?? []).filter((r) => r !== run);
    if (list.length > 0) this.executions.set(key, list);
    else this.executions.delete(key);
    this.runs.delete(run.runId);
  }

  currentRun(namespace: string, workflowId: string): WorkflowRun | undefined {
    const list = this.executions.get(`${namespace}\u0000${workflowId}`);
    return list?.[list.length - 1];
  }

  /** The run named by `(workflowId, runId)`; an empty runId means the current run. */
  getRun(namespace: string, workflowId: string | null | undefined, runId?: string | null): WorkflowRun {
    this.namespaces.get(namespace);
    const run = runId ? this.runs.get(runId) : this.currentRun(namespace, workflowId ?? '');
    if (!run || run.namespace !== namespace || (workflowId && run.workflowId !== workflowId)) {
      throw notFound(`workflow execution not found for workflow ID "${workflowId ?? ''}" and run ID "${runId ?? ''}"`);
    }
    return run;
  }

  addEvent(run: WorkflowRun, eventType: EventType, attrs: HistoryEvent): number {
    return run.addEvent(eventType, attrs, this.now());
  }

  /**
   * Delivers a workflow-visible event: buffered while a workflow task is started,
   * else written at once (scheduling a workflow task when none exists).
   */
  deliver(run: WorkflowRun, entry: BufferedEntry): boolean {
    if (!run.isOpen) return false;
    if (run.wft?.state === 'started') {
      run.buffered.push(entry);
    } else {
      entry.write();
      if (run.wft?.virtual) {
        // a real event turns a transient / speculative task into a normal first attempt
        run.wftAttempt = 1;
        run.wft.attempt = 1;
        run.wft.scheduledAttrs.attempt = 1;
        run.wft.speculative = false;
        this.materializeWft(run);
      }
      this.scheduleWft(run);
      run.notify();
    }
    return true;
  }

  /** The would-be WorkflowTaskScheduled / Started events of a virtual task that was started. */
  virtualWftEvents(run: WorkflowRun): HistoryEvent[] {
    const wft = run.wft;
    if (!wft?.virtual || wft.state !== 'started') return [];
    return [
      {
        eventId: L(wft.scheduledEventId),
        eventTime: ts(wft.scheduledTime),
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
        workflowTaskScheduledEventAttributes: wft.scheduledAttrs,
      },
      {
        eventId: L(wft.startedEventId),
        eventTime: ts(wft.startedTime),
        eventType: EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
        workflowTaskStartedEventAttributes: {
          scheduledEventId: L(wft.scheduledEventId),
          identity: wft.startedIdentity,
          requestId: wft.startedRequestId,
          historySizeBytes: L(run.historySizeBytes),
        },
      },
    ];
  }

  /** Writes a virtual task's Scheduled (and Started, if started) events: it becomes a normal task. */
  materializeWft(run: WorkflowRun): void {
    const wft = run.wft;
    if (!wft?.virtual) return;
    const events = this.virtualWftEvents(run);
    wft.virtual = false;
    wft.speculative = false;
    if (wft.state === 'started') {
      for (const event of events) {
        run.history.push(event);
        run.historySizeBytes += 64;
      }
      return;
    }
    wft.scheduledEventId = run.addEvent(
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      { workflowTaskScheduledEventAttributes: wft.scheduledAttrs },
      wft.scheduledTime,
    );
  }

  /** Writes buffered events (after a workflow task ends); returns whether any were written. */
  flushBuffered(run: WorkflowRun): boolean {
    const entries = run.buffered;
    run.buffered = [];
    for (const entry of entries) entry.write();
    return entries.length > 0;
  }

  /**
   * Schedules a workflow task when none exists. Retries (attempt > 1) and `speculative` tasks
   * (only updates to deliver) are virtual: their events are written only if they record something.
   */
  scheduleWft(run: WorkflowRun, speculative = false): void {
    if (!run.isOpen || run.wft || this.now() < run.executionTime) return;
    const sticky = run.sticky;
    const queue = sticky ? sticky.queue : run.taskQueue;
    const timeoutMs = ms(run.startedAttrs.workflowTaskTimeout) || 10_000;
    const now = this.now();
    const scheduledAttrs = {
      taskQueue: sticky
        ? { name: queue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: run.taskQueue }
        : { name: queue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      startToCloseTimeout: dur(timeoutMs),
      attempt: run.wftAttempt,
    };
    const virtual = speculative || run.wftAttempt > 1;
    const scheduledEventId = virtual
      ? 0
      : this.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, { workflowTaskScheduledEventAttributes: scheduledAttrs });
    const nonce = this.nextNonce();
    run.wft = {
      nonce,
      scheduledEventId,
      startedEventId: 0,
      attempt: run.wftAttempt,
      queue,
      sticky: sticky !== undefined,
      scheduledTime: now,
      startedTime: 0,
      state: 'scheduled',
      queryIds: [],
      updateIds: [],
      virtual,
      speculative,
      scheduledAttrs,
      startedIdentity: '',
      startedRequestId: '',
    };
    this.clock.hold(run.wft);
    if (sticky) {
      run.wft.timer = this.clock.after(sticky.scheduleToStartMs, () => this.stickyTimeout(run, nonce));
    }
    const task: WftTask = {
      kind: 'wft',
      run,
      nonce,
      isValid: () => run.isOpen && run.wft?.nonce === nonce && run.wft.state === 'scheduled',
    };
    this.queues.add(run.namespace, 'workflow', queue, task);
  }

  /** An unclaimed sticky task: timed out (schedule-to-start), moved to the normal queue. */
  stickyTimeout(run: WorkflowRun, nonce: number): void {
    const wft = run.wft;
    if (!run.isOpen || !wft || wft.nonce !== nonce || wft.state !== 'scheduled') return;
    if (!wft.virtual) {
      this.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
        workflowTaskTimedOutEventAttributes: {
          scheduledEventId: L(wft.scheduledEventId),
          startedEventId: L(0),
          timeoutType: TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START,
        },
      });
    }
    this.clearWft(run);
    this.setSticky(run, undefined);
    this.scheduleWft(run, wft.speculative);
  }

  clearWft(run: WorkflowRun): void {
    if (!run.wft) return;
    run.wft.timer?.cancel();
    this.clock.release(run.wft);
    run.wft = undefined;
  }

  setSticky(run: WorkflowRun, sticky: WorkflowRun['sticky']): void {
    if (run.sticky) this.stickyRuns.get(run.sticky.queue)?.delete(run);
    run.sticky = sticky && !this.deadStickyQueues.has(sticky.queue) ? sticky : undefined;
    if (run.sticky && sticky) {
      let set = this.stickyRuns.get(sticky.queue);
      if (!set) {
        set = new Set();
        this.stickyRuns.set(sticky.queue, set);
      }
      set.add(run);
    }
  }

  /** A worker's sticky queue is gone: its runs fall back to the normal queue. */
  dropStickyQueue(namespace: string, queue: string): void {
    const runs = this.stickyRuns.get(queue);
    this.stickyRuns.delete(queue);
    this.deadStickyQueues.add(queue);
    for (const run of runs ?? []) {
      run.sticky = undefined;
      if (run.wft?.state === 'scheduled' && run.wft.sticky) this.stickyTimeout(run, run.wft.nonce);
    }
    this.queues.extract(namespace, 'workflow', queue, () => true);
  }
}
