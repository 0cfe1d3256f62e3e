/**
 * Activity tasks: scheduling from a command, dispatch to pollers, completion,
 * failure with server-side retries, cancellation, heartbeats and the four timeouts.
 * ActivityTaskStarted is written only with the terminal event (as the real server does).
 */
import { randomUUID } from 'node:crypto';
import type { TimerHandle } from './clock';
import type { ActivityTask, Engine } from './engine';
import { notFound, workflowCompleted } from './errors';
import { EventType, TimeoutType, api, dur, ms, ts, type Failure, type Payloads, type RetryPolicy, L } from './proto';
import { withRetryDefaults } from './retry';
import { timeOut } from './activity-outcomes';
import type { WorkflowRun } from './run';

type ScheduledAttrs = api.history.v1.IActivityTaskScheduledEventAttributes;

export interface ActivityState {
  scheduledEventId: number;
  activityId: string;
  attrs: ScheduledAttrs;
  taskQueue: string;
  scheduleToCloseMs: number;
  scheduleToStartMs: number;
  startToCloseMs: number;
  heartbeatMs: number;
  retryPolicy: RetryPolicy;
  attempt: number;
  /** `closing`: its terminal event waits in the buffer. */
  state: 'scheduled' | 'started' | 'backoff' | 'closing';
  nonce: number;
  firstScheduledTime: number;
  currentAttemptScheduledTime: number;
  startedTime: number;
  startedIdentity: string;
  requestId: string;
  heartbeatDetails?: Payloads | null;
  lastHeartbeatTime: number;
  lastFailure?: Failure | null;
  cancelRequested: boolean;
  cancelRequestedEventId: number;
  timers: TimerHandle[];
  heartbeatTimer?: TimerHandle;
  scheduleToCloseTimer?: TimerHandle;
}

/** Writes ActivityTaskScheduled (timeouts normalised) and returns the state to enqueue after commit. */
export function scheduleActivity(
  engine: Engine,
  run: WorkflowRun,
  command: api.command.v1.IScheduleActivityTaskCommandAttributes,
  completedEventId: number,
): ActivityState {
  let s2c = ms(command.scheduleToCloseTimeout);
  let s2s = ms(command.scheduleToStartTimeout);
  let st2c = ms(command.startToCloseTimeout);
  let hb = ms(command.heartbeatTimeout);
  const runTimeout = ms(run.startedAttrs.workflowRunTimeout);
  if (s2c > 0) {
    if (s2s <= 0) s2s = s2c;
    if (st2c <= 0) st2c = s2c;
  } else {
    s2c = runTimeout;
    if (s2s <= 0) s2s = s2c;
  }
  if (runTimeout > 0) {
    s2c = Math.min(s2c || runTimeout, runTimeout);
    s2s = Math.min(s2s || runTimeout, runTimeout);
    st2c = Math.min(st2c, runTimeout);
  }
  if (s2c > 0) {
    s2s = Math.min(s2s || s2c, s2c);
    st2c = Math.min(st2c, s2c);
    hb = Math.min(hb, s2c);
  }
  const retryPolicy = withRetryDefaults(command.retryPolicy);
  const taskQueue = command.taskQueue?.name || run.taskQueue;
  const attrs: ScheduledAttrs = {
    activityId: command.activityId,
    activityType: command.activityType,
    taskQueue: { name: taskQueue, kind: 1 },
    header: command.header,
    input: command.input,
    scheduleToCloseTimeout: dur(s2c),
    scheduleToStartTimeout: dur(s2s),
    startToCloseTimeout: dur(st2c),
    heartbeatTimeout: dur(hb),
    workflowTaskCompletedEventId: L(completedEventId),
    retryPolicy,
    priority: command.priority,
    useWorkflowBuildId: command.useWorkflowBuildId,
  };
  const scheduledEventId = engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, {
    activityTaskScheduledEventAttributes: attrs,
  });
  const now = engine.now();
  const activity: ActivityState = {
    scheduledEventId,
    activityId: command.activityId ?? '',
    attrs,
    taskQueue,
    scheduleToCloseMs: s2c,
    scheduleToStartMs: s2s,
    startToCloseMs: st2c,
    heartbeatMs: hb,
    retryPolicy,
    attempt: 1,
    state: 'scheduled',
    nonce: 0,
    firstScheduledTime: now,
    currentAttemptScheduledTime: now,
    startedTime: 0,
    startedIdentity: '',
    requestId: '',
    lastHeartbeatTime: 0,
    cancelRequested: false,
    cancelRequestedEventId: 0,
    timers: [],
  };
  run.activities.set(scheduledEventId, activity);
  return activity;
}

/**
 * After the workflow task commits: arm schedule-to-close and queue the first attempt —
 * or, for eager execution, return the task for the completing worker instead of queueing it.
 */
export function startActivityClock(engine: Engine, run: WorkflowRun, activity: ActivityState, eager = false): ActivityTask | undefined {
  if (activity.scheduleToCloseMs > 0) {
    activity.scheduleToCloseTimer = engine.clock.at(activity.firstScheduledTime + activity.scheduleToCloseMs, () =>
      timeOut(engine, run, activity, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE, activity.nonce, true),
    );
  }
  return enqueueAttempt(engine, run, activity, eager);
}

export function clearAttemptTimers(activity: ActivityState): void {
  for (const timer of activity.timers) timer.cancel();
  activity.timers = [];
  activity.heartbeatTimer?.cancel();
  activity.heartbeatTimer = undefined;
}

export function enqueueAttempt(engine: Engine, run: WorkflowRun, activity: ActivityState, eager = false): ActivityTask | undefined {
  if (!run.isOpen || run.activities.get(activity.scheduledEventId) !== activity) return undefined;
  clearAttemptTimers(activity);
  activity.state = 'scheduled';
  activity.nonce = engine.nextNonce();
  activity.currentAttemptScheduledTime = engine.now();
  engine.clock.hold(activity);
  const nonce = activity.nonce;
  if (activity.scheduleToStartMs > 0 && activity.scheduleToStartMs < activity.scheduleToCloseMs) {
    activity.timers.push(
      engine.clock.after(activity.scheduleToStartMs, () =>
        timeOut(engine, run, activity, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START, nonce, false),
      ),
    );
  } else if (activity.scheduleToCloseMs === 0 && activity.scheduleToStartMs > 0) {
    activity.timers.push(
      engine.clock.after(activity.scheduleToStartMs, () =>
        timeOut(engine, run, activity, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START, nonce, false),
      ),
    );
  }
  const task: ActivityTask = {
    kind: 'activity',
    run,
    scheduledEventId: activity.scheduledEventId,
    nonce,
    isValid: () =>
      run.isOpen &&
      activity.nonce === nonce &&
      activity.state === 'scheduled' &&
      run.activities.get(activity.scheduledEventId) === activity,
  };
  if (eager) return task;
  engine.queues.add(run.namespace, 'activity', activity.taskQueue, task);
  return undefined;
}

/** A poller takes the attempt: remember the start, arm start-to-close and heartbeat timeouts. */
export function startActivityTask(
  engine: Engine,
  task: ActivityTask,
  identity: string,
): api.workflowservice.v1.IPollActivityTaskQueueResponse {
  const run = task.run;
  const activity = run.activities.get(task.scheduledEventId) as ActivityState;
  clearAttemptTimers(activity);
  const now = engine.now();
  activity.state = 'started';
  activity.startedTime = now;
  activity.lastHeartbeatTime = now;
  activity.startedIdentity = identity;
  activity.requestId = randomUUID();
  const nonce = activity.nonce;
  if (activity.startToCloseMs > 0) {
    activity.timers.push(
      engine.clock.after(activity.startToCloseMs, () =>
        timeOut(engine, run, activity, TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE, nonce, false),
      ),
    );
  }
  armHeartbeat(engine, run, activity);
  return {
    taskToken: Buffer.from(JSON.stringify({ k: 'a', r: run.runId, s: activity.scheduledEventId, n: nonce })),
    workflowNamespace: run.namespace,
    workflowType: { name: run.workflowType },
    workflowExecution: run.execution,
    activityType: activity.attrs.activityType,
    activityId: activity.activityId,
    header: activity.attrs.header,
    input: activity.attrs.input,
    heartbeatDetails: activity.heartbeatDetails,
    scheduledTime: ts(activity.firstScheduledTime),
    currentAttemptScheduledTime: ts(activity.currentAttemptScheduledTime),
    startedTime: ts(now),
    attempt: activity.attempt,
    scheduleToCloseTimeout: dur(activity.scheduleToCloseMs),
    startToCloseTimeout: dur(activity.startToCloseMs),
    heartbeatTimeout: dur(activity.heartbeatMs),
    retryPolicy: activity.retryPolicy,
    priority: activity.attrs.priority,
  };
}

function armHeartbeat(engine: Engine, run: WorkflowRun, activity: ActivityState): void {
  activity.heartbeatTimer?.cancel();
  activity.heartbeatTimer = undefined;
  if (activity.heartbeatMs <= 0) return;
  const nonce = activity.nonce;
  activity.heartbeatTimer = engine.clock.after(activity.heartbeatMs, () =>
    timeOut(engine, run, activity, TimeoutType.TIMEOUT_TYPE_HEARTBEAT, nonce, false),
  );
}

interface TokenFields {
  k: string;
  r: string;
  s: number;
  n: number;
}

function parseToken(token: Uint8Array | null | undefined): TokenFields {
  try {
    return JSON.parse(Buffer.from(token ?? []).toString()) as TokenFields;
  } catch {
    throw notFound('invalid task token');
  }
}

export function activityFromToken(engine: Engine, token: Uint8Array | null | undefined): { run: WorkflowRun; activity: ActivityState } {
  const fields = parseToken(token);
  const run = engine.runs.get(fields.r);
  if (!run || fields.k !== 'a') throw notFound('workflow execution not found');
  if (!run.isOpen) throw workflowCompleted();
  const activity = run.activities.get(fields.s);
  if (!activity || activity.nonce !== fields.n || activity.state !== 'started') throw notFound('activity task not found');
  return { run, activity };
}

export function activityById(
  engine: Engine,
  namespace: string,
  workflowId: string,
  runId: string,
  activityId: string,
): { run: WorkflowRun; activity: ActivityState } {
  const run = engine.getRun(namespace, workflowId, runId);
  if (!run.isOpen) throw workflowCompleted();
  for (const activity of run.activities.values()) {
    if (activity.activityId === activityId && activity.state === 'started') return { run, activity };
  }
  throw notFound(`activity ${activityId} not found or not running`);
}

export function heartbeatActivity(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  details: Payloads | null | undefined,
): { cancelRequested: boolean } {
  if (details) activity.heartbeatDetails = details;
  activity.lastHeartbeatTime = engine.now();
  armHeartbeat(engine, run, activity);
  return { cancelRequested: activity.cancelRequested };
}

/** RequestCancelActivityTask command: records the request; a never-started attempt is canceled at once. */
export function requestCancelActivity(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  completedEventId: number,
  identity: string,
): boolean {
  const requestedId = engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCEL_REQUESTED, {
    activityTaskCancelRequestedEventAttributes: {
      scheduledEventId: L(activity.scheduledEventId),
      workflowTaskCompletedEventId: L(completedEventId),
    },
  });
  activity.cancelRequested = true;
  activity.cancelRequestedEventId = requestedId;
  if (activity.state === 'started' || activity.state === 'closing') return false;
  clearAttemptTimers(activity);
  activity.scheduleToCloseTimer?.cancel();
  engine.clock.release(activity);
  run.activities.delete(activity.scheduledEventId);
  engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, {
    activityTaskCanceledEventAttributes: {
      scheduledEventId: L(activity.scheduledEventId),
      startedEventId: L(0),
      latestCancelRequestedEventId: L(requestedId),
      identity,
    },
  });
  return true;
}
