/**
 * Closing runs: everything after a close event (parent notification, parent close policy,
 * listeners), run timeouts, and the next run of a chain (continue-as-new, retry, cron).
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import { EventType, RetryState, Status, enums, ms, type Failure, type HistoryEvent, type Payloads, type StartedAttrs } from './proto';
import { evaluateRetry } from './retry';
import { canonicalSpec, nextTime } from './calendar';
import type { WorkflowRun } from './run';
import { createRun, requestCancelRun, terminate } from './lifecycle';
import { releaseQueries } from './queries';

export function timeoutRun(engine: Engine, run: WorkflowRun): void {
  if (!run.isOpen) return;
  run.buffered = [];
  const failure: Failure = {
    message: 'workflow timeout',
    timeoutFailureInfo: { timeoutType: enums.TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE },
  };
  const expiresAt = ms(run.startedAttrs.workflowExecutionExpirationTime);
  const decision = evaluateRetry(run.startedAttrs.retryPolicy, run.startedAttrs.attempt ?? 1, failure, engine.now(), expiresAt);
  const newRunId = decision.retryState === RetryState.RETRY_STATE_IN_PROGRESS ? 'pending' : '';
  const eventId = engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT, {
    workflowExecutionTimedOutEventAttributes: { retryState: decision.retryState },
  });
  if (newRunId) {
    const next = continueChain(
      engine,
      run,
      {
        attempt: (run.startedAttrs.attempt ?? 1) + 1,
        continuedFailure: failure,
        initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY,
      },
      decision.delayMs,
    );
    const event = run.history[eventId - 1];
    if (event.workflowExecutionTimedOutEventAttributes) event.workflowExecutionTimedOutEventAttributes.newExecutionRunId = next.runId;
    finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT, next.runId);
    releaseQueries(engine, run);
    return;
  }
  finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);
  releaseQueries(engine, run);
}

/** The next run of a chain (continue-as-new, retry, cron): same id, parent and expiration. */
export function continueChain(engine: Engine, prev: WorkflowRun, overrides: StartedAttrs, backoffMs: number): WorkflowRun {
  const base = prev.startedAttrs;
  const attrs: StartedAttrs = {
    workflowType: base.workflowType,
    taskQueue: base.taskQueue,
    input: base.input,
    header: base.header,
    workflowExecutionTimeout: base.workflowExecutionTimeout,
    workflowRunTimeout: base.workflowRunTimeout,
    workflowTaskTimeout: base.workflowTaskTimeout,
    identity: base.identity,
    retryPolicy: base.retryPolicy,
    cronSchedule: base.cronSchedule,
    memo: prev.memo,
    searchAttributes: { indexedFields: prev.searchAttributes },
    priority: base.priority,
    workflowExecutionExpirationTime: base.workflowExecutionExpirationTime,
    parentWorkflowNamespace: base.parentWorkflowNamespace,
    parentWorkflowExecution: base.parentWorkflowExecution,
    parentInitiatedEventId: base.parentInitiatedEventId,
    rootWorkflowExecution: base.rootWorkflowExecution,
    attempt: 1,
    ...overrides,
    continuedExecutionRunId: prev.runId,
    firstExecutionRunId: prev.firstRunId,
  };
  return createRun(engine, {
    namespace: prev.namespace,
    workflowId: prev.workflowId,
    requestId: randomUUID(),
    attrs,
    parent: prev.parent,
    backoffMs,
  });
}

/** Everything after a close event is written. `nextRunId` set when the chain continues. */
export function finishRun(engine: Engine, run: WorkflowRun, status: Status, nextRunId = ''): void {
  run.status = status;
  run.closeTime = engine.now();
  run.nextRunId = nextRunId;
  run.buffered = [];
  engine.clearWft(run);
  engine.setSticky(run, undefined);
  for (const timer of run.runTimers) timer.cancel();
  for (const timer of run.timers.values()) timer.handle?.cancel();
  for (const activity of run.activities.values()) {
    for (const timer of activity.timers) timer.cancel();
    engine.clock.release(activity);
  }
  run.activities.clear();
  if (!nextRunId) notifyParent(engine, run);
  applyParentClosePolicy(engine, run);
  for (const listener of engine.closeListeners) listener(run);
  run.notify();
}

function notifyParent(engine: Engine, run: WorkflowRun): void {
  if (!run.parent) return;
  const parent = engine.runs.get(run.parent.runId);
  if (!parent?.isOpen) return;
  const initiatedEventId = run.parent.initiatedEventId;
  const close = run.closeEvent();
  const common = (): HistoryEvent => {
    const child = parent.children.get(initiatedEventId);
    return {
      namespace: run.namespace,
      workflowExecution: run.execution,
      workflowType: { name: run.workflowType },
      initiatedEventId,
      startedEventId: child?.startedEventId ?? 0,
    } as HistoryEvent;
  };
  const write = (): void => {
    const base = common() as Record<string, unknown>;
    parent.children.delete(initiatedEventId);
    switch (run.status) {
      case Status.WORKFLOW_EXECUTION_STATUS_COMPLETED:
        engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED, {
          childWorkflowExecutionCompletedEventAttributes: { ...base, result: close?.workflowExecutionCompletedEventAttributes?.result },
        });
        break;
      case Status.WORKFLOW_EXECUTION_STATUS_FAILED:
        engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED, {
          childWorkflowExecutionFailedEventAttributes: {
            ...base,
            failure: close?.workflowExecutionFailedEventAttributes?.failure,
            retryState: close?.workflowExecutionFailedEventAttributes?.retryState,
          },
        });
        break;
      case Status.WORKFLOW_EXECUTION_STATUS_CANCELED:
        engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED, {
          childWorkflowExecutionCanceledEventAttributes: { ...base, details: close?.workflowExecutionCanceledEventAttributes?.details },
        });
        break;
      case Status.WORKFLOW_EXECUTION_STATUS_TERMINATED:
        engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED, {
          childWorkflowExecutionTerminatedEventAttributes: base,
        });
        break;
      case Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT:
        engine.addEvent(parent, EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT, {
          childWorkflowExecutionTimedOutEventAttributes: {
            ...base,
            retryState: close?.workflowExecutionTimedOutEventAttributes?.retryState,
          },
        });
        break;
      default:
        break;
    }
  };
  engine.deliver(parent, { write });
}

function applyParentClosePolicy(engine: Engine, parent: WorkflowRun): void {
  for (const child of parent.children.values()) {
    const run = engine.currentRun(child.namespace, child.workflowId);
    if (!run?.isOpen || run.parent?.runId !== parent.runId) continue;
    if (child.parentClosePolicy === enums.ParentClosePolicy.PARENT_CLOSE_POLICY_ABANDON) continue;
    if (child.parentClosePolicy === enums.ParentClosePolicy.PARENT_CLOSE_POLICY_REQUEST_CANCEL) {
      requestCancelRun(engine, run, 'by parent close policy', 'history-service');
    } else {
      terminate(engine, run, 'by parent close policy', undefined, 'history-service');
    }
  }
}

/** Time until the next cron time (legacy workflow cron schedules, UTC). */
export function cronBackoff(engine: Engine, cronSchedule: string): number {
  const now = engine.now();
  const next = nextTime(canonicalSpec({ cronString: [cronSchedule] }), now);
  return next === undefined ? 0 : next - now;
}

/** A cron workflow's next run after this one closed; returns its run id ('' when not cron). */
export function continueCron(
  engine: Engine,
  run: WorkflowRun,
  lastCompletionResult: Payloads | null | undefined,
  failure?: Failure | null,
): string {
  const cron = run.startedAttrs.cronSchedule;
  if (!cron) return '';
  const next = continueChain(
    engine,
    run,
    {
      initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_CRON_SCHEDULE,
      lastCompletionResult: lastCompletionResult ?? run.startedAttrs.lastCompletionResult,
      continuedFailure: failure ?? undefined,
      attempt: 1,
    },
    cronBackoff(engine, cron),
  );
  return next.runId;
}
