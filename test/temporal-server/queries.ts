/**
 * Queries: attached to the next workflow task when one is pending, else sent as a
 * direct ("legacy") query task; answered by the worker either way.
 */
import { randomUUID } from 'node:crypto';
import type { PollOptions } from './task-queues';
import type { Engine, QueryTask } from './engine';
import { ServiceError, deadlineExceeded, failedPrecondition } from './errors';
import { Status, api, enums, packAny, type Failure, type Payloads, L } from './proto';
import type { WorkflowRun } from './run';
import { status as grpcStatus } from '@grpc/grpc-js';

export type QueryOutcome = { answer: Payloads | null | undefined } | { errorMessage: string; failure?: Failure | null };

export interface PendingQuery {
  id: string;
  run: WorkflowRun;
  query: api.query.v1.IWorkflowQuery;
  state: 'pending' | 'attached' | 'dispatched' | 'done';
  resolve(outcome: QueryOutcome): void;
}

type QueryRequest = api.workflowservice.v1.IQueryWorkflowRequest;
type QueryResponse = api.workflowservice.v1.IQueryWorkflowResponse;

export async function queryWorkflow(
  engine: Engine,
  req: QueryRequest,
  waitMs: number,
  onCancel: PollOptions['onCancel'],
): Promise<QueryResponse> {
  const namespace = req.namespace ?? '';
  const run = engine.getRun(namespace, req.execution?.workflowId, req.execution?.runId);
  const reject = req.queryRejectCondition ?? 0;
  if (!run.isOpen) {
    const rejected =
      reject === enums.QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_OPEN ||
      (reject === enums.QueryRejectCondition.QUERY_REJECT_CONDITION_NOT_COMPLETED_CLEANLY &&
        run.status !== Status.WORKFLOW_EXECUTION_STATUS_COMPLETED);
    if (rejected) return { queryRejected: { status: run.status } };
    if (!run.anyWftCompleted) throw failedPrecondition('workflow not ready: it closed before any workflow task completed');
  } else if (run.wft && run.wft.attempt >= 3) {
    throw failedPrecondition(`workflow not ready: its workflow task is failing (attempt ${run.wft.attempt})`);
  }
  const outcome = await new Promise<QueryOutcome>((resolve, rejectPromise) => {
    const query: PendingQuery = {
      id: randomUUID(),
      run,
      query: req.query ?? {},
      state: 'pending',
      resolve: (value) => {
        if (query.state === 'done') return;
        query.state = 'done';
        clearTimeout(timer);
        engine.queries.delete(query.id);
        resolve(value);
      },
    };
    const giveUp = (error: ServiceError): void => {
      if (query.state === 'done') return;
      query.state = 'done';
      engine.queries.delete(query.id);
      const index = run.pendingQueries.indexOf(query);
      if (index >= 0) run.pendingQueries.splice(index, 1);
      rejectPromise(error);
    };
    const timer = setTimeout(() => giveUp(deadlineExceeded('query timed out: no worker answered')), waitMs);
    onCancel(() => giveUp(new ServiceError(grpcStatus.CANCELLED, 'query cancelled by the client')));
    engine.queries.set(query.id, query);
    if (run.isOpen && run.wft) run.pendingQueries.push(query);
    else dispatchLegacyQuery(engine, query);
  });
  if ('answer' in outcome) return { queryResult: outcome.answer };
  throw new ServiceError(grpcStatus.INVALID_ARGUMENT, outcome.errorMessage, [
    packAny('temporal.api.errordetails.v1.QueryFailedFailure', { failure: outcome.failure ?? undefined }),
  ]);
}

export function dispatchLegacyQuery(engine: Engine, query: PendingQuery): void {
  query.state = 'pending';
  const task: QueryTask = { kind: 'query', query, isValid: () => query.state === 'pending' };
  engine.queues.add(query.run.namespace, 'workflow', query.run.taskQueue, task);
}

/** Poll reply for a direct query task. */
export function startLegacyQuery(engine: Engine, query: PendingQuery): api.workflowservice.v1.IPollWorkflowTaskQueueResponse {
  query.state = 'dispatched';
  const run = query.run;
  const now = engine.now();
  return {
    taskToken: Buffer.from(JSON.stringify({ k: 'q', q: query.id })),
    workflowExecution: run.execution,
    workflowType: { name: run.workflowType },
    previousStartedEventId: L(run.lastCompletedStartedId),
    startedEventId: L(0),
    attempt: 1,
    history: { events: run.history },
    query: query.query,
    workflowExecutionTaskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    scheduledTime: { seconds: L(Math.floor(now / 1000)) },
    startedTime: { seconds: L(Math.floor(now / 1000)) },
  };
}

export function respondQueryTaskCompleted(engine: Engine, id: string, req: api.workflowservice.v1.IRespondQueryTaskCompletedRequest): void {
  const query = engine.queries.get(id);
  if (!query) return;
  if (req.completedType === enums.QueryResultType.QUERY_RESULT_TYPE_ANSWERED) query.resolve({ answer: req.queryResult });
  else query.resolve({ errorMessage: req.errorMessage ?? 'query failed', failure: req.failure });
}

/** Answers the queries a workflow task carried; the unanswered ones wait for another task. */
export function settleTaskQueries(
  engine: Engine,
  run: WorkflowRun,
  queryIds: string[],
  results: Record<string, api.query.v1.IWorkflowQueryResult> | null | undefined,
): void {
  for (const id of queryIds) {
    const query = engine.queries.get(id);
    if (!query || query.state === 'done') continue;
    const result = results?.[id];
    if (!result) {
      query.state = 'pending';
      if (!run.pendingQueries.includes(query)) run.pendingQueries.push(query);
      continue;
    }
    const index = run.pendingQueries.indexOf(query);
    if (index >= 0) run.pendingQueries.splice(index, 1);
    if (result.resultType === enums.QueryResultType.QUERY_RESULT_TYPE_ANSWERED) query.resolve({ answer: result.answer });
    else query.resolve({ errorMessage: result.errorMessage ?? 'query failed', failure: result.failure });
  }
}

/** Queries left without a pending workflow task go out as direct query tasks. */
export function releaseQueries(engine: Engine, run: WorkflowRun): void {
  if (run.isOpen && run.wft) return;
  const queries = run.pendingQueries.splice(0);
  for (const query of queries) if (query.state !== 'done') dispatchLegacyQuery(engine, query);
}
