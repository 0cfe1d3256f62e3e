/** Activity outcomes: completion, failure with server-side retries, cancellation and timeouts. */
import type { Engine } from './engine';
import { EventType, RetryState, TimeoutType, L, type Failure, type Payloads } from './proto';
import { evaluateRetry } from './retry';
import type { WorkflowRun } from './run';
import { clearAttemptTimers, enqueueAttempt, type ActivityState } from './activities';

/** Stops the activity's clocks and lets `write` record its terminal events. */
function close(engine: Engine, run: WorkflowRun, activity: ActivityState, terminal: (startedEventId: number) => void): void {
  const wasStarted = activity.state === 'started';
  clearAttemptTimers(activity);
  activity.scheduleToCloseTimer?.cancel();
  activity.state = 'closing';
  activity.nonce = -1;
  engine.clock.release(activity);
  engine.deliver(run, {
    write: () => {
      run.activities.delete(activity.scheduledEventId);
      let startedEventId = 0;
      if (wasStarted) {
        startedEventId = run.addEvent(
          EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
          {
            activityTaskStartedEventAttributes: {
              scheduledEventId: L(activity.scheduledEventId),
              identity: activity.startedIdentity,
              requestId: activity.requestId,
              attempt: activity.attempt,
              lastFailure: activity.attempt > 1 ? activity.lastFailure : undefined,
            },
          },
          Math.min(activity.startedTime, engine.now()),
        );
      }
      terminal(startedEventId);
    },
  });
}

export function completeActivity(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  result: Payloads | null | undefined,
  identity: string,
): void {
  close(engine, run, activity, (startedEventId) =>
    engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED, {
      activityTaskCompletedEventAttributes: {
        result,
        scheduledEventId: L(activity.scheduledEventId),
        startedEventId: L(startedEventId),
        identity,
      },
    }),
  );
}

export function cancelActivity(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  details: Payloads | null | undefined,
  identity: string,
): void {
  close(engine, run, activity, (startedEventId) =>
    engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_CANCELED, {
      activityTaskCanceledEventAttributes: {
        details,
        latestCancelRequestedEventId: L(activity.cancelRequestedEventId),
        scheduledEventId: L(activity.scheduledEventId),
        startedEventId: L(startedEventId),
        identity,
      },
    }),
  );
}

export function failActivity(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  failure: Failure | null | undefined,
  identity: string,
  lastHeartbeatDetails?: Payloads | null,
): void {
  if (lastHeartbeatDetails?.payloads?.length) activity.heartbeatDetails = lastHeartbeatDetails;
  const decision = activity.cancelRequested
    ? { retryState: RetryState.RETRY_STATE_CANCEL_REQUESTED, delayMs: 0 }
    : evaluateRetry(activity.retryPolicy, activity.attempt, failure, engine.now(), expiresAt(activity));
  if (decision.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
    retryLater(engine, run, activity, failure, decision.delayMs);
    return;
  }
  close(engine, run, activity, (startedEventId) =>
    engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED, {
      activityTaskFailedEventAttributes: {
        failure,
        scheduledEventId: L(activity.scheduledEventId),
        startedEventId: L(startedEventId),
        identity,
        retryState: decision.retryState,
      },
    }),
  );
}

function expiresAt(activity: ActivityState): number {
  return activity.scheduleToCloseMs > 0 ? activity.firstScheduledTime + activity.scheduleToCloseMs : 0;
}

function retryLater(engine: Engine, run: WorkflowRun, activity: ActivityState, failure: Failure | null | undefined, delayMs: number): void {
  clearAttemptTimers(activity);
  activity.state = 'backoff';
  activity.nonce = engine.nextNonce();
  activity.lastFailure = failure;
  activity.attempt += 1;
  activity.startedTime = 0;
  activity.startedIdentity = '';
  engine.clock.release(activity);
  activity.timers.push(engine.clock.after(delayMs, () => void enqueueAttempt(engine, run, activity)));
}

const TIMEOUT_LABEL: Record<number, string> = {
  [TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
  [TimeoutType.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
};

export function timeOut(
  engine: Engine,
  run: WorkflowRun,
  activity: ActivityState,
  type: TimeoutType,
  nonce: number,
  anyAttempt: boolean,
): void {
  if (!run.isOpen || run.activities.get(activity.scheduledEventId) !== activity || activity.state === 'closing') return;
  if (!anyAttempt && activity.nonce !== nonce) return;
  let timeoutType = type;
  const failureFor = (t: TimeoutType): Failure => ({
    message: `activity ${TIMEOUT_LABEL[t]} timeout`,
    timeoutFailureInfo: { timeoutType: t, lastHeartbeatDetails: activity.heartbeatDetails },
    cause: activity.lastFailure ?? undefined,
  });
  // The real server never retries a schedule-to-start timeout and says so (NON_RETRYABLE_FAILURE);
  // a schedule-to-close timeout is the retry budget running out (TIMEOUT).
  let retryState: RetryState =
    type === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START ? RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE : RetryState.RETRY_STATE_TIMEOUT;
  if (type === TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE || type === TimeoutType.TIMEOUT_TYPE_HEARTBEAT) {
    const failure = failureFor(type);
    const decision = activity.cancelRequested
      ? { retryState: RetryState.RETRY_STATE_CANCEL_REQUESTED, delayMs: 0 }
      : evaluateRetry(activity.retryPolicy, activity.attempt, failure, engine.now(), expiresAt(activity));
    if (decision.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
      retryLater(engine, run, activity, { ...failure, cause: undefined }, decision.delayMs);
      return;
    }
    retryState = decision.retryState;
    if (retryState === RetryState.RETRY_STATE_TIMEOUT) timeoutType = TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE;
  }
  const failure = failureFor(timeoutType);
  close(engine, run, activity, (startedEventId) =>
    engine.addEvent(run, EventType.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT, {
      activityTaskTimedOutEventAttributes: {
        failure,
        scheduledEventId: L(activity.scheduledEventId),
        startedEventId: L(startedEventId),
        retryState,
      },
    }),
  );
}
