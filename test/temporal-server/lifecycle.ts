/**
 * Run lifecycle: creating runs (start, child, continue-as-new, retry), signals,
 * cancel requests, termination, timeouts and everything that happens at close.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import { alreadyStarted, invalidArgument, workflowCompleted } from './errors';
import {
  EventType,
  Status,
  api,
  dur,
  enums,
  ms,
  ts,
  type Header,
  type HistoryEvent,
  type Payloads,
  type StartedAttrs,
  type WorkflowExecution,
  L,
} from './proto';
import { cronBackoff, finishRun, timeoutRun } from './run-close';
import { releaseQueries } from './queries';
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
export function startWorkflow(
  engine: Engine,
  namespace: string,
  req: StartRequest,
  initialEvents?: (run: WorkflowRun) => void,
): StartResult {
  engine.namespaces.get(namespace);
  const workflowId = req.workflowId ?? '';
  if (!workflowId) throw invalidArgument('WorkflowId is not set on request.');
  if (!req.workflowType?.name) throw invalidArgument('WorkflowType is not set on request.');
  if (!req.taskQueue?.name) throw invalidArgument('TaskQueue is not set on request.');
  for (const [name, value] of [
    ['WorkflowExecutionTimeout', req.workflowExecutionTimeout],
    ['WorkflowRunTimeout', req.workflowRunTimeout],
    ['WorkflowTaskTimeout', req.workflowTaskTimeout],
    ['WorkflowStartDelay', req.workflowStartDelay],
  ] as const) {
    if (ms(value) < 0) throw invalidArgument(`Invalid ${name}.`);
  }
  const problem = engine.namespaces.searchAttributeProblem(namespace, req.searchAttributes?.indexedFields);
  if (problem) throw invalidArgument(problem);
  if (req.cronSchedule && ms(req.workflowStartDelay) > 0)
    throw invalidArgument('CronSchedule and WorkflowStartDelay may not be used together.');
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
        throw alreadyStarted(
          `Workflow execution is already running. WorkflowId: ${workflowId}, RunId: ${current.runId}.`,
          current.startRequestId,
          current.runId,
        );
      }
    } else if (
      reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_REJECT_DUPLICATE ||
      (reuse === Reuse.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE_FAILED_ONLY &&
        current.status === Status.WORKFLOW_EXECUTION_STATUS_COMPLETED)
    ) {
      throw alreadyStarted(
        `Workflow execution already finished and its WorkflowIdReusePolicy does not allow a new start. WorkflowId: ${workflowId}, RunId: ${current.runId}.`,
        current.startRequestId,
        current.runId,
      );
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

export function requestCancelRun(
  engine: Engine,
  run: WorkflowRun,
  reason: string,
  identity: string,
  external?: { initiatedEventId: number; execution: WorkflowExecution },
): void {
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
  if (run.wft?.state === 'started' && !run.wft.virtual) {
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
  // queries that waited for the dead task go to the worker as direct queries on the closed run
  releaseQueries(engine, run);
}
