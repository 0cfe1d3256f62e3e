/**
 * Run lifecycle: creating runs (start, child, continue-as-new, retry), signals,
 * cancel requests, termination, timeouts and everything that happens at close.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import { alreadyStarted, invalidArgument, workflowCompleted } from './errors';
import {
  EventType, RetryState, Status, api, dur, enums, ms, ts,
  type Failure, type Header, type HistoryEvent, type Payloads, type StartedAttrs, type WorkflowExecution, L } from './proto';
import { evaluateRetry } from './retry';
import { canonicalSpec, nextTime } from './calendar';
import { WorkflowRun, type ParentRef } from './run';

type StartRequest = api.workflowservice.v1.IStartWorkflowExecutionRequest;
const Reuse = enums.WorkflowIdReusePolicy;
const Conflict = enums.WorkflowIdConflictPolicy;

export interface NewRun {
  namespace: string;
  workflowId: string;
  requestId: string;
  attrs: StartedAttrs;
  parent?: ParentRef;
  backoffMs?: number;
  /** Writes events right after WorkflowExecutionStarted (signal-with-start). */
  initialEvents?: (run: WorkflowRun) => void;
}

export function createRun(engine: Engine, spec: NewRun): WorkflowRun {
  const runId = randomUUID();
  const now = engine.now();
  const backoffMs = spec.backoffMs ?? 0;
  const taskTimeoutMs = Math.min(ms(spec.attrs.workflowTaskTimeout) || 10_000, 120_000);
  const attrs: StartedAttrs = {
    ...spec.attrs,
    taskQueue: { name: spec.attrs.taskQueue?.name ?? '', kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    workflowTaskTimeout: dur(taskTimeoutMs),
    originalExecutionRunId: runId,
    firstExecutionRunId: spec.attrs.firstExecutionRunId || runId,
    attempt: spec.attrs.attempt || 1,
    firstWorkflowTaskBackoff: backoffMs > 0 ? dur(backoffMs) : undefined,
  };
  const run = new WorkflowRun(spec.namespace, spec.workflowId, runId, attrs, now, spec.parent, spec.requestId);
  engine.addRun(run);
  engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, { workflowExecutionStartedEventAttributes: attrs });
  spec.initialEvents?.(run);
  run.executionTime = now + backoffMs;
  let runTimeoutMs = ms(attrs.workflowRunTimeout);
  const expiresAt = ms(attrs.workflowExecutionExpirationTime);
  if (expiresAt > 0) runTimeoutMs = Math.min(runTimeoutMs || Infinity, expiresAt - now);
  if (runTimeoutMs > 0 && runTimeoutMs !== Infinity) {
    run.runTimers.push(engine.clock.at(now + backoffMs + runTimeoutMs, () => timeoutRun(engine, run)));
  }
  if (backoffMs > 0) run.runTimers.push(engine.clock.at(run.executionTime, () => engine.scheduleWft(run)));
  else engine.scheduleWft(run);
  return run;
}

/** The started attributes of a new chain from a start request. */
export function startedAttrsFromRequest(engine: Engine, req: StartRequest): StartedAttrs {
  const executionMs = ms(req.workflowExecutionTimeout);
  let runMs = ms(req.workflowRunTimeout);
  if (executionMs > 0 && (runMs === 0 || runMs > executionMs)) runMs = executionMs;
  return {
    workflowType: req.workflowType,
    taskQueue: req.taskQueue,
    input: req.input,
    header: req.header,
    workflowExecutionTimeout: executionMs > 0 ? dur(executionMs) : undefined,
    workflowRunTimeout: runMs > 0 ? dur(runMs) : undefined,
    workflowTaskTimeout: req.workflowTaskTimeout,
    identity: req.identity,
    retryPolicy: req.retryPolicy,
    cronSchedule: req.cronSchedule,
    memo: req.memo,
    searchAttributes: req.searchAttributes,
    priority: req.priority,
    workflowExecutionExpirationTime: executionMs > 0 ? ts(engine.now() + executionMs) : undefined,
    attempt: 1,
  };
}

export interface StartResult {
  runId: string;
  started: boolean;
  run: WorkflowRun;
}

/** Start with request-id idempotency and the id reuse / conflict policies. */
export function startWorkflow(engine: Engine, namespace: string, req: StartRequest, initialEvents?: (run: WorkflowRun) => void): StartResult {
  engine.namespaces.get(namespace);
  const workflowId = req.workflowId ?? '';
  if (!workflowId) throw invalidArgument('WorkflowId is not set on request.');
  if (!req.workflowType?.name) throw invalidArgument('WorkflowType is not set on request.');
  if (!req.taskQueue?.name) throw invalidArgument('TaskQueue is not set on request.');
  let reuse = req.workflowIdReusePolicy ?? Reuse.WORKFLOW_ID_REUSE_POLICY_UNSPECIFIED;
  let conflict = req.workflowIdConflictPolicy ?? Conflict.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED;
  if (reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_TERMINATE_IF_RUNNING) {
    if (conflict !== Conflict.WORKFLOW_ID_CONFLICT_POLICY_UNSPECIFIED) {
      throw invalidArgument('Invalid WorkflowIDReusePolicy: TERMINATE_IF_RUNNING cannot be used together with a WorkflowIDConflictPolicy.');
    }
    conflict = Conflict.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING;
    reuse = Reuse.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE;
  }
  const current = engine.currentRun(namespace, workflowId);
  if (current) {
    if (req.requestId && current.startRequestId === req.requestId) return { runId: current.runId, started: true, run: current };
    if (current.isOpen) {
      if (conflict === Conflict.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) return { runId: current.runId, started: false, run: current };
      if (conflict === Conflict.WORKFLOW_ID_CONFLICT_POLICY_TERMINATE_EXISTING) {
        terminate(engine, current, 'terminated by a new start (TERMINATE_EXISTING)', undefined, req.identity ?? '');
      } else {
        throw alreadyStarted(`Workflow execution is already running. WorkflowId: ${workflowId}, RunId: ${current.runId}.`, current.startRequestId, current.runId);
      }
    } else if (
      reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE ||
      (reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY && current.status === Status.WORKFLOW_EXECUTION_STATUS_COMPLETED)
    ) {
      throw alreadyStarted(`Workflow execution already finished and its WorkflowIdReusePolicy does not allow a new start. WorkflowId: ${workflowId}, RunId: ${current.runId}.`, current.startRequestId, current.runId);
    }
  }
  const run = createRun(engine, {
    namespace,
    workflowId,
    requestId: req.requestId ?? randomUUID(),
    attrs: startedAttrsFromRequest(engine, req),
    backoffMs: req.cronSchedule ? cronBackoff(engine, req.cronSchedule) : ms(req.workflowStartDelay),
    initialEvents,
  });
  return { runId: run.runId, started: true, run };
}

export interface SignalInput {
  signalName: string;
  input?: Payloads | null;
  header?: Header | null;
  identity?: string | null;
  requestId?: string | null;
  external?: WorkflowExecution;
}

export function signalAttrs(input: SignalInput): HistoryEvent {
  return {
    workflowExecutionSignaledEventAttributes: {
      signalName: input.signalName,
      input: input.input,
      header: input.header,
      identity: input.identity,
      externalWorkflowExecution: input.external,
    },
  };
}

export function signalRun(engine: Engine, run: WorkflowRun, input: SignalInput): void {
  if (!run.isOpen) throw workflowCompleted();
  if (input.requestId) {
    if (run.signalRequestIds.has(input.requestId)) return;
    run.signalRequestIds.add(input.requestId);
  }
  engine.deliver(run, { write: () => engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, signalAttrs(input)) });
}

export function requestCancelRun(engine: Engine, run: WorkflowRun, reason: string, identity: string, external?: { initiatedEventId: number; execution: WorkflowExecution }): void {
  if (!run.isOpen || run.cancelRequested) return;
  run.cancelRequested = true;
  engine.deliver(run, {
    write: () =>
      engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCEL_REQUESTED, {
        workflowExecutionCancelRequestedEventAttributes: {
          cause: reason,
          identity,
          externalInitiatedEventId: external ? L(external.initiatedEventId) : undefined,
          externalWorkflowExecution: external?.execution,
        },
      }),
  });
}

export function terminate(engine: Engine, run: WorkflowRun, reason: string, details: Payloads | null | undefined, identity: string): void {
  if (!run.isOpen) throw workflowCompleted();
  if (run.wft?.state === 'started') {
    engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
      workflowTaskFailedEventAttributes: {
        scheduledEventId: L(run.wft.scheduledEventId),
        startedEventId: L(run.wft.startedEventId),
        cause: enums.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_FORCE_CLOSE_COMMAND,
        identity,
      },
    });
  }
  run.buffered = [];
  engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED, {
    workflowExecutionTerminatedEventAttributes: { reason, details, identity },
  });
  finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_TERMINATED);
}

function timeoutRun(engine: Engine, run: WorkflowRun): void {
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
    const next = continueChain(engine, run, { attempt: (run.startedAttrs.attempt ?? 1) + 1, continuedFailure: failure, initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY }, decision.delayMs);
    const event = run.history[eventId - 1];
    if (event.workflowExecutionTimedOutEventAttributes) event.workflowExecutionTimedOutEventAttributes.newExecutionRunId = next.runId;
    finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT, next.runId);
    return;
  }
  finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_TIMED_OUT);
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
          childWorkflowExecutionTimedOutEventAttributes: { ...base, retryState: close?.workflowExecutionTimedOutEventAttributes?.retryState },
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
export function continueCron(engine: Engine, run: WorkflowRun, lastCompletionResult: Payloads | null | undefined, failure?: Failure | null): string {
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
