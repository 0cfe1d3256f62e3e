/** Reading runs: GetWorkflowExecutionHistory (with its long polls) and DescribeWorkflowExecution. */
import type { Engine } from './engine';
import type { CallContext } from './grpc-server';
import { L, api, decodePayload, dur, enums, ts, type Payload } from './proto';
import type { WorkflowRun } from './run';

type HistoryRequest = api.workflowservice.v1.IGetWorkflowExecutionHistoryRequest;
type HistoryResponse = api.workflowservice.v1.IGetWorkflowExecutionHistoryResponse;

function longPollMs(engine: Engine, ctx: CallContext): number {
  return Math.max(0, Math.min(engine.options.longPollTimeoutMs, ctx.remainingMs() - 1000));
}

async function waitFor(run: WorkflowRun, done: () => boolean, timeoutMs: number, ctx: CallContext): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && !ctx.isCancelled()) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return;
    await run.waitForChange(remaining, (cb) => ctx.onCancel(cb));
  }
}

export async function getHistory(engine: Engine, req: HistoryRequest, ctx: CallContext): Promise<HistoryResponse> {
  const run = engine.getRun(req.namespace ?? '', req.execution?.workflowId, req.execution?.runId);
  if (req.historyEventFilterType === enums.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT) {
    if (run.isOpen && req.waitNewEvent) await waitFor(run, () => !run.isOpen, longPollMs(engine, ctx), ctx);
    const close = run.closeEvent();
    if (close) return { history: { events: [close] } };
    return { history: { events: [] }, nextPageToken: req.waitNewEvent ? Buffer.from('close') : undefined };
  }
  let offset = 0;
  if (req.nextPageToken && req.nextPageToken.length > 0) offset = Number(Buffer.from(req.nextPageToken).toString()) || 0;
  if (req.waitNewEvent && run.isOpen && offset >= run.history.length) {
    await waitFor(run, () => run.history.length > offset || !run.isOpen, longPollMs(engine, ctx), ctx);
  }
  const pageSize = req.maximumPageSize && req.maximumPageSize > 0 ? req.maximumPageSize : 10_000;
  const events = run.history.slice(offset, offset + pageSize);
  const end = offset + events.length;
  const more = end < run.history.length || (req.waitNewEvent === true && run.isOpen);
  // like the real server, the last page carries a started transient task's events (workers need them)
  if (!more && !req.waitNewEvent) events.push(...engine.virtualWftEvents(run));
  return { history: { events }, nextPageToken: more ? Buffer.from(String(end)) : undefined };
}

/** GetWorkflowExecutionHistoryReverse: newest events first, paged. */
export function getHistoryReverse(
  engine: Engine,
  req: api.workflowservice.v1.IGetWorkflowExecutionHistoryReverseRequest,
): api.workflowservice.v1.IGetWorkflowExecutionHistoryReverseResponse {
  const run = engine.getRun(req.namespace ?? '', req.execution?.workflowId, req.execution?.runId);
  const end = req.nextPageToken?.length ? Number(Buffer.from(req.nextPageToken).toString()) || 0 : run.history.length;
  const pageSize = req.maximumPageSize && req.maximumPageSize > 0 ? req.maximumPageSize : 10_000;
  const start = Math.max(0, end - pageSize);
  return {
    history: { events: run.history.slice(start, end).reverse() },
    nextPageToken: start > 0 ? Buffer.from(String(start)) : undefined,
  };
}

const TYPE_KEY = 'type';

/** Search attributes with the `type` metadata the SDK's typed decoder needs. */
export function typedSearchAttributes(fields: Record<string, Payload>): Record<string, Payload> {
  const out: Record<string, Payload> = {};
  for (const [key, payload] of Object.entries(fields)) {
    if (payload.metadata?.[TYPE_KEY]) {
      out[key] = payload;
      continue;
    }
    const value = decodePayload(payload);
    let type = 'Keyword';
    if (typeof value === 'number') type = Number.isInteger(value) ? 'Int' : 'Double';
    else if (typeof value === 'boolean') type = 'Bool';
    else if (Array.isArray(value)) type = 'KeywordList';
    out[key] = { ...payload, metadata: { ...(payload.metadata ?? {}), [TYPE_KEY]: Buffer.from(type) } };
  }
  return out;
}

export function executionInfo(run: WorkflowRun): api.workflow.v1.IWorkflowExecutionInfo {
  return {
    execution: run.execution,
    type: { name: run.workflowType },
    startTime: ts(run.startTime),
    closeTime: run.isOpen ? undefined : ts(run.closeTime),
    status: run.status,
    historyLength: L(run.history.length),
    historySizeBytes: L(run.historySizeBytes),
    executionTime: ts(run.executionTime),
    memo: run.memo,
    searchAttributes: { indexedFields: typedSearchAttributes(run.searchAttributes) },
    taskQueue: run.taskQueue,
    parentNamespaceId: run.parent ? run.parent.namespace : undefined,
    parentExecution: run.parent ? { workflowId: run.parent.workflowId, runId: run.parent.runId } : undefined,
    rootExecution: run.startedAttrs.rootWorkflowExecution ?? run.execution,
    firstRunId: run.firstRunId,
  };
}

export function describe(
  engine: Engine,
  req: api.workflowservice.v1.IDescribeWorkflowExecutionRequest,
): api.workflowservice.v1.IDescribeWorkflowExecutionResponse {
  const run = engine.getRun(req.namespace ?? '', req.execution?.workflowId, req.execution?.runId);
  const attrs = run.startedAttrs;
  const pendingActivities: api.workflow.v1.IPendingActivityInfo[] = [];
  for (const activity of run.activities.values()) {
    if (activity.state === 'closing') continue;
    pendingActivities.push({
      activityId: activity.activityId,
      activityType: activity.attrs.activityType,
      state: activity.cancelRequested
        ? enums.PendingActivityState.PENDING_ACTIVITY_STATE_CANCEL_REQUESTED
        : activity.state === 'started'
          ? enums.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
          : enums.PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED,
      heartbeatDetails: activity.heartbeatDetails,
      lastHeartbeatTime: activity.lastHeartbeatTime ? ts(activity.lastHeartbeatTime) : undefined,
      lastStartedTime: activity.startedTime ? ts(activity.startedTime) : undefined,
      attempt: activity.attempt,
      maximumAttempts: activity.retryPolicy.maximumAttempts ?? 0,
      scheduledTime: ts(activity.currentAttemptScheduledTime),
      lastFailure: activity.lastFailure,
      lastWorkerIdentity: activity.startedIdentity,
    });
  }
  const pendingChildren: api.workflow.v1.IPendingChildExecutionInfo[] = [...run.children.values()].map((child) => ({
    workflowId: child.workflowId,
    runId: child.runId,
    workflowTypeName: child.workflowType,
    initiatedId: L(child.initiatedEventId),
    parentClosePolicy: child.parentClosePolicy,
  }));
  return {
    executionConfig: {
      taskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      workflowExecutionTimeout: attrs.workflowExecutionTimeout ?? dur(0),
      workflowRunTimeout: attrs.workflowRunTimeout ?? dur(0),
      defaultWorkflowTaskTimeout: attrs.workflowTaskTimeout,
    },
    workflowExecutionInfo: executionInfo(run),
    pendingActivities,
    pendingChildren,
    pendingWorkflowTask: run.wft
      ? {
          state:
            run.wft.state === 'started'
              ? enums.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_STARTED
              : enums.PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED,
          scheduledTime: ts(run.wft.scheduledTime),
          attempt: run.wft.attempt,
        }
      : undefined,
  };
}
