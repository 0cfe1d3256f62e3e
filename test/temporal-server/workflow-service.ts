/** `temporal.api.workflowservice.v1.WorkflowService`: each RPC mapped onto the engine. */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import type { CallContext, Handler } from './grpc-server';
import { ServiceError, invalidArgument, notFound } from './errors';
import { status as grpcStatus } from '@grpc/grpc-js';
import { api, dur, enums, ms, packAny, ts } from './proto';
import { requestCancelRun, signalRun, startWorkflow, terminate, signalAttrs } from './lifecycle';
import { respondWorkflowTaskCompleted, respondWorkflowTaskFailed, startWorkflowTask } from './workflow-tasks';
import { activityById, activityFromToken, heartbeatActivity, startActivityTask } from './activities';
import { cancelActivity, completeActivity, failActivity } from './activity-outcomes';
import { queryWorkflow, respondQueryTaskCompleted, startLegacyQuery } from './queries';
import { pollUpdate, updateWorkflow } from './updates';
import { describe, getHistory, getHistoryReverse } from './history';
import { countWorkflows, listWorkflows } from './visibility';
import { scheduleHandlers } from './schedules';
import type { ScheduleRunner } from './schedule-runner';
import { SYSTEM_SEARCH_ATTRIBUTES } from './namespaces';
import { EventType } from './proto';

import wf = api.workflowservice.v1;

export interface ServiceOptions {
  serverVersion: string;
  schedules: ScheduleRunner;
}

function pollWaitMs(engine: Engine, ctx: CallContext): number {
  return Math.max(0, Math.min(engine.options.pollTimeoutMs, ctx.remainingMs() - 1000));
}

/** Long waits for queries/updates: the client deadline when set, else the engine's soft limit. */
function waitMs(_engine: Engine, ctx: CallContext, fallback: number): number {
  const remaining = ctx.remainingMs();
  return Number.isFinite(remaining) ? Math.max(0, remaining - 500) : fallback;
}

export function workflowServiceHandlers(engine: Engine, options: ServiceOptions): Record<string, Handler> {
  const ns = (namespace: string | null | undefined): string => {
    engine.namespaces.get(namespace ?? '');
    return namespace ?? '';
  };
  const handlers: Record<string, (req: never, ctx: CallContext) => Promise<object> | object> = {
    GetSystemInfo: (): wf.IGetSystemInfoResponse => ({
      serverVersion: options.serverVersion,
      capabilities: {
        signalAndQueryHeader: true,
        internalErrorDifferentiation: true,
        activityFailureIncludeHeartbeat: true,
        supportsSchedules: true,
        encodedFailureAttributes: true,
        upsertMemo: true,
        sdkMetadata: true,
        countGroupByExecutionStatus: true,
        eagerWorkflowStart: false,
        buildIdBasedVersioning: false,
        nexus: false,
      },
    }),
    GetClusterInfo: (): wf.IGetClusterInfoResponse => ({
      clusterName: 'stand-in',
      clusterId: 'stand-in',
      serverVersion: options.serverVersion,
      historyShardCount: 1,
      persistenceStore: 'memory',
      visibilityStore: 'memory',
      supportedClients: {},
    }),
    DescribeNamespace: (req: wf.IDescribeNamespaceRequest): wf.IDescribeNamespaceResponse => {
      const info = req.id ? engine.namespaces.list().find((n) => n.id === req.id) : engine.namespaces.get(req.namespace ?? '');
      if (!info) throw notFound(`Namespace ${req.id ?? ''} is not found.`);
      return namespaceDescription(info);
    },
    // Only the retention changes (what the service sets at start-up); the rest of the request is ignored.
    UpdateNamespace: (req: wf.IUpdateNamespaceRequest): wf.IUpdateNamespaceResponse => {
      const info = engine.namespaces.get(req.namespace ?? '');
      const retention = req.config?.workflowExecutionRetentionTtl;
      if (retention) info.retentionDays = ms(retention) / 86_400_000;
      const { namespaceInfo, config } = namespaceDescription(info);
      return { namespaceInfo, config, isGlobalNamespace: false };
    },
    ListNamespaces: (): wf.IListNamespacesResponse => ({ namespaces: engine.namespaces.list().map(namespaceDescription) }),
    RegisterNamespace: (req: wf.IRegisterNamespaceRequest): wf.IRegisterNamespaceResponse => {
      if (!req.namespace) throw invalidArgument('Namespace is not set on request.');
      engine.namespaces.register(req.namespace, req.description ?? '');
      return {};
    },
    GetSearchAttributes: (): wf.IGetSearchAttributesResponse => {
      const info = engine.namespaces.get('default');
      return { keys: { ...SYSTEM_SEARCH_ATTRIBUTES, ...Object.fromEntries(info.searchAttributes) } };
    },

    StartWorkflowExecution: (req: wf.IStartWorkflowExecutionRequest): wf.IStartWorkflowExecutionResponse => {
      const result = startWorkflow(engine, ns(req.namespace), req);
      return { runId: result.runId, started: result.started };
    },
    SignalWithStartWorkflowExecution: (req: wf.ISignalWithStartWorkflowExecutionRequest): wf.ISignalWithStartWorkflowExecutionResponse => {
      const namespace = ns(req.namespace);
      const conflict = req.workflowIdConflictPolicy || enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING;
      const signal = {
        signalName: req.signalName ?? '',
        input: req.signalInput,
        header: req.header,
        identity: req.identity,
        requestId: req.requestId,
      };
      const current = engine.currentRun(namespace, req.workflowId ?? '');
      if (current?.isOpen && conflict === enums.WorkflowIdConflictPolicy.WORKFLOW_ID_CONFLICT_POLICY_USE_EXISTING) {
        signalRun(engine, current, signal);
        return { runId: current.runId, started: false };
      }
      const result = startWorkflow(
        engine,
        namespace,
        { ...req, workflowIdConflictPolicy: conflict, requestId: req.requestId || randomUUID() },
        (run) => {
          engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED, signalAttrs(signal));
        },
      );
      if (!result.started) signalRun(engine, result.run, signal);
      return { runId: result.runId, started: result.started };
    },
    SignalWorkflowExecution: (req: wf.ISignalWorkflowExecutionRequest): wf.ISignalWorkflowExecutionResponse => {
      const run = engine.getRun(ns(req.namespace), req.workflowExecution?.workflowId, req.workflowExecution?.runId);
      signalRun(engine, run, {
        signalName: req.signalName ?? '',
        input: req.input,
        header: req.header,
        identity: req.identity,
        requestId: req.requestId,
      });
      return {};
    },
    RequestCancelWorkflowExecution: (req: wf.IRequestCancelWorkflowExecutionRequest): wf.IRequestCancelWorkflowExecutionResponse => {
      const run = engine.getRun(ns(req.namespace), req.workflowExecution?.workflowId, req.workflowExecution?.runId);
      if (req.firstExecutionRunId && run.firstRunId !== req.firstExecutionRunId) throw notFound('workflow execution not found');
      requestCancelRun(engine, run, req.reason ?? '', req.identity ?? '');
      return {};
    },
    TerminateWorkflowExecution: (req: wf.ITerminateWorkflowExecutionRequest): wf.ITerminateWorkflowExecutionResponse => {
      const run = engine.getRun(ns(req.namespace), req.workflowExecution?.workflowId, req.workflowExecution?.runId);
      if (req.firstExecutionRunId && run.firstRunId !== req.firstExecutionRunId) throw notFound('workflow execution not found');
      terminate(engine, run, req.reason ?? '', req.details, req.identity ?? '');
      return {};
    },
    DescribeWorkflowExecution: (req: wf.IDescribeWorkflowExecutionRequest) => describe(engine, req),
    GetWorkflowExecutionHistory: (req: wf.IGetWorkflowExecutionHistoryRequest, ctx) => getHistory(engine, req, ctx),
    GetWorkflowExecutionHistoryReverse: (req: wf.IGetWorkflowExecutionHistoryReverseRequest) => getHistoryReverse(engine, req),
    QueryWorkflow: (req: wf.IQueryWorkflowRequest, ctx) =>
      queryWorkflow(engine, req, waitMs(engine, ctx, 60_000), (cb) => ctx.onCancel(cb)),
    UpdateWorkflowExecution: (req: wf.IUpdateWorkflowExecutionRequest, ctx) =>
      updateWorkflow(engine, req, Math.min(waitMs(engine, ctx, engine.options.longPollTimeoutMs), engine.options.longPollTimeoutMs), (cb) =>
        ctx.onCancel(cb),
      ),
    PollWorkflowExecutionUpdate: (req: wf.IPollWorkflowExecutionUpdateRequest, ctx) =>
      pollUpdate(engine, req, Math.min(waitMs(engine, ctx, engine.options.longPollTimeoutMs), engine.options.longPollTimeoutMs), (cb) =>
        ctx.onCancel(cb),
      ),
    DescribeTaskQueue: (req: wf.IDescribeTaskQueueRequest): wf.IDescribeTaskQueueResponse => {
      const namespace = ns(req.namespace);
      const kind = req.taskQueueType === enums.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY ? 'activity' : 'workflow';
      const pollers = engine.pollers.get(`${namespace}\u0000${kind}\u0000${req.taskQueue?.name ?? ''}`) ?? new Map<string, number>();
      const recent = [...pollers.entries()].filter(([, at]) => Date.now() - at < 5 * 60_000);
      return { pollers: recent.map(([identity, at]) => ({ identity, lastAccessTime: ts(at), ratePerSecond: 100_000 })) };
    },
    DeleteWorkflowExecution: (req: wf.IDeleteWorkflowExecutionRequest): wf.IDeleteWorkflowExecutionResponse => {
      const run = engine.getRun(ns(req.namespace), req.workflowExecution?.workflowId, req.workflowExecution?.runId);
      if (run.isOpen) terminate(engine, run, 'deleted', undefined, 'DeleteWorkflowExecution');
      engine.deleteRun(run);
      return {};
    },
    ExecuteMultiOperation: async (req: wf.IExecuteMultiOperationRequest, ctx): Promise<wf.IExecuteMultiOperationResponse> => {
      const namespace = ns(req.namespace);
      const [first, second] = req.operations ?? [];
      const startReq = first?.startWorkflow;
      const updateReq = second?.updateWorkflow;
      if (!startReq || !updateReq || (req.operations ?? []).length !== 2) {
        throw invalidArgument('ExecuteMultiOperation supports exactly [StartWorkflow, UpdateWorkflow].');
      }
      if (!startReq.workflowIdConflictPolicy) throw invalidArgument('Update-with-start requires a WorkflowIdConflictPolicy.');
      let started: ReturnType<typeof startWorkflow>;
      try {
        started = startWorkflow(engine, namespace, { ...startReq, namespace });
      } catch (error) {
        if (error instanceof ServiceError) throw multiOperationFailure(error);
        throw error;
      }
      const update = await updateWorkflow(
        engine,
        { ...updateReq, namespace, workflowExecution: { workflowId: startReq.workflowId, runId: started.runId } },
        Math.min(waitMs(engine, ctx, engine.options.longPollTimeoutMs), engine.options.longPollTimeoutMs),
        (cb) => ctx.onCancel(cb),
      );
      return { responses: [{ startWorkflow: { runId: started.runId, started: started.started } }, { updateWorkflow: update }] };
    },
    ListWorkflowExecutions: (req: wf.IListWorkflowExecutionsRequest) => listWorkflows(engine, ns(req.namespace), req),
    ScanWorkflowExecutions: (req: wf.IListWorkflowExecutionsRequest) => listWorkflows(engine, ns(req.namespace), req),
    CountWorkflowExecutions: (req: wf.ICountWorkflowExecutionsRequest) => countWorkflows(engine, ns(req.namespace), req.query ?? ''),

    PollWorkflowTaskQueue: async (req: wf.IPollWorkflowTaskQueueRequest, ctx): Promise<wf.IPollWorkflowTaskQueueResponse> => {
      const namespace = ns(req.namespace);
      const identity = req.identity ?? '';
      engine.recordPoller(namespace, 'workflow', req.taskQueue?.name ?? '', identity);
      const response = await engine.queues.poll(
        namespace,
        'workflow',
        req.taskQueue?.name ?? '',
        { timeoutMs: pollWaitMs(engine, ctx), onCancel: (cb) => ctx.onCancel(cb), isCancelled: () => ctx.isCancelled() },
        (task) => {
          if (task.kind === 'query') return startLegacyQuery(engine, task.query);
          if (task.kind === 'wft') return startWorkflowTask(engine, task.run, identity);
          return {};
        },
      );
      return response ?? {};
    },
    RespondWorkflowTaskCompleted: (req: wf.IRespondWorkflowTaskCompletedRequest) => respondWorkflowTaskCompleted(engine, req),
    RespondWorkflowTaskFailed: (req: wf.IRespondWorkflowTaskFailedRequest) => {
      respondWorkflowTaskFailed(engine, req);
      return {};
    },
    RespondQueryTaskCompleted: (req: wf.IRespondQueryTaskCompletedRequest) => {
      let id = '';
      try {
        id = (JSON.parse(Buffer.from(req.taskToken ?? []).toString()) as { q?: string }).q ?? '';
      } catch {
        throw notFound('invalid query task token');
      }
      respondQueryTaskCompleted(engine, id, req);
      return {};
    },
    ResetStickyTaskQueue: (req: wf.IResetStickyTaskQueueRequest) => {
      const run = engine.getRun(ns(req.namespace), req.execution?.workflowId, req.execution?.runId);
      engine.setSticky(run, undefined);
      return {};
    },
    ShutdownWorker: (req: wf.IShutdownWorkerRequest) => {
      if (req.stickyTaskQueue) engine.dropStickyQueue(ns(req.namespace), req.stickyTaskQueue);
      return {};
    },
    RecordWorkerHeartbeat: () => ({}),
    PollNexusTaskQueue: async (_req: wf.IPollNexusTaskQueueRequest, ctx) => {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pollWaitMs(engine, ctx));
        ctx.onCancel(() => {
          clearTimeout(timer);
          resolve();
        });
      });
      return {};
    },
    PollActivityTaskQueue: async (req: wf.IPollActivityTaskQueueRequest, ctx): Promise<wf.IPollActivityTaskQueueResponse> => {
      const namespace = ns(req.namespace);
      engine.recordPoller(namespace, 'activity', req.taskQueue?.name ?? '', req.identity ?? '');
      const response = await engine.queues.poll(
        namespace,
        'activity',
        req.taskQueue?.name ?? '',
        { timeoutMs: pollWaitMs(engine, ctx), onCancel: (cb) => ctx.onCancel(cb), isCancelled: () => ctx.isCancelled() },
        (task) => (task.kind === 'activity' ? startActivityTask(engine, task, req.identity ?? '') : {}),
      );
      return response ?? {};
    },
    RecordActivityTaskHeartbeat: (req: wf.IRecordActivityTaskHeartbeatRequest): wf.IRecordActivityTaskHeartbeatResponse => {
      const { run, activity } = activityFromToken(engine, req.taskToken);
      return heartbeatActivity(engine, run, activity, req.details);
    },
    RecordActivityTaskHeartbeatById: (req: wf.IRecordActivityTaskHeartbeatByIdRequest): wf.IRecordActivityTaskHeartbeatByIdResponse => {
      const { run, activity } = activityById(engine, ns(req.namespace), req.workflowId ?? '', req.runId ?? '', req.activityId ?? '');
      return heartbeatActivity(engine, run, activity, req.details);
    },
    RespondActivityTaskCompleted: (req: wf.IRespondActivityTaskCompletedRequest) => {
      const { run, activity } = activityFromToken(engine, req.taskToken);
      completeActivity(engine, run, activity, req.result, req.identity ?? '');
      return {};
    },
    RespondActivityTaskCompletedById: (req: wf.IRespondActivityTaskCompletedByIdRequest) => {
      const { run, activity } = activityById(engine, ns(req.namespace), req.workflowId ?? '', req.runId ?? '', req.activityId ?? '');
      completeActivity(engine, run, activity, req.result, req.identity ?? '');
      return {};
    },
    RespondActivityTaskFailed: (req: wf.IRespondActivityTaskFailedRequest) => {
      const { run, activity } = activityFromToken(engine, req.taskToken);
      failActivity(engine, run, activity, req.failure, req.identity ?? '', req.lastHeartbeatDetails);
      return {};
    },
    RespondActivityTaskFailedById: (req: wf.IRespondActivityTaskFailedByIdRequest) => {
      const { run, activity } = activityById(engine, ns(req.namespace), req.workflowId ?? '', req.runId ?? '', req.activityId ?? '');
      failActivity(engine, run, activity, req.failure, req.identity ?? '', req.lastHeartbeatDetails);
      return {};
    },
    RespondActivityTaskCanceled: (req: wf.IRespondActivityTaskCanceledRequest) => {
      const { run, activity } = activityFromToken(engine, req.taskToken);
      cancelActivity(engine, run, activity, req.details, req.identity ?? '');
      return {};
    },
    RespondActivityTaskCanceledById: (req: wf.IRespondActivityTaskCanceledByIdRequest) => {
      const { run, activity } = activityById(engine, ns(req.namespace), req.workflowId ?? '', req.runId ?? '', req.activityId ?? '');
      cancelActivity(engine, run, activity, req.details, req.identity ?? '');
      return {};
    },
    ...scheduleHandlers(engine, options.schedules),
  };
  return handlers as Record<string, Handler>;
}

function namespaceDescription(info: {
  name: string;
  id: string;
  description: string;
  retentionDays: number;
}): wf.IDescribeNamespaceResponse {
  return {
    namespaceInfo: {
      name: info.name,
      id: info.id,
      description: info.description,
      state: enums.NamespaceState.NAMESPACE_STATE_REGISTERED,
      capabilities: { syncUpdate: true, asyncUpdate: true, eagerWorkflowStart: false },
    },
    config: { workflowExecutionRetentionTtl: dur(info.retentionDays * 86_400_000) },
    isGlobalNamespace: false,
  };
}

/** A failed start inside ExecuteMultiOperation: same code, per-operation statuses in the details. */
function multiOperationFailure(error: ServiceError): ServiceError {
  return new ServiceError(error.code, error.message, [
    packAny('temporal.api.errordetails.v1.MultiOperationExecutionFailure', {
      statuses: [
        { code: error.code, message: error.message, details: error.details },
        {
          code: grpcStatus.ABORTED,
          message: 'Operation was aborted.',
          details: [packAny('temporal.api.failure.v1.MultiOperationExecutionAborted', {})],
        },
      ],
    }),
  ]);
}
