/**
 * Frontend protocol details checked with raw gRPC calls against an in-process stand-in
 * (the SDK hides these): long-poll timeouts, cancelled polls, sticky queues, UnhandledCommand,
 * request-id idempotency, namespaces.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Connection } from '@temporalio/client';
import Long from 'long';
import { temporal } from '@temporalio/proto';
import { StandInServer } from '../temporal-server/server';

const { EventType, CommandType, TaskQueueKind, TimeoutType } = temporal.api.enums.v1;

describe('temporal stand-in: frontend protocol', function () {
  this.timeout(20_000);
  let server: StandInServer;
  let connection: Connection;
  const namespace = 'default';

  before(async () => {
    server = await StandInServer.start({ pollTimeoutMs: 300, longPollTimeoutMs: 300 });
    connection = await Connection.connect({ address: server.address });
  });

  after(async () => {
    await connection?.close();
    await server?.stop();
  });

  const svc = () => connection.workflowService;
  const start = async (taskQueue: string, workflowId = `wf-${randomUUID()}`, requestId = randomUUID()) => {
    const response = await svc().startWorkflowExecution({
      namespace,
      workflowId,
      workflowType: { name: 'raw' },
      taskQueue: { name: taskQueue },
      requestId,
      identity: 'test',
    });
    return { workflowId, runId: response.runId };
  };
  const poll = (name: string, kind = TaskQueueKind.TASK_QUEUE_KIND_NORMAL) =>
    svc().pollWorkflowTaskQueue({ namespace, taskQueue: { name, kind }, identity: 'raw-worker' });
  const types = (events: temporal.api.history.v1.IHistoryEvent[] | null | undefined) => (events ?? []).map((e) => e.eventType);

  it('answers system info and namespaces; unknown namespaces are NOT_FOUND', async () => {
    const info = await svc().getSystemInfo({});
    assert.equal(info.capabilities?.sdkMetadata, true);
    const ns = await svc().describeNamespace({ namespace });
    assert.equal(ns.namespaceInfo?.name, 'default');
    await assert.rejects(svc().describeNamespace({ namespace: 'nope' }), /NOT_FOUND|not found/i);
  });

  it('registers, lists and removes search attributes (OperatorService)', async () => {
    const operator = connection.operatorService;
    const { IndexedValueType } = temporal.api.enums.v1;
    await operator.addSearchAttributes({ namespace, searchAttributes: { OrderId: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD } });
    const listed = await operator.listSearchAttributes({ namespace });
    assert.equal(listed.customAttributes?.OrderId, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    // Like the real dev server (1.29), no Custom*Field attributes are registered up front.
    assert.equal(listed.customAttributes?.CustomKeywordField, undefined);
    assert.equal(listed.systemAttributes?.WorkflowId, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);
    await operator.removeSearchAttributes({ namespace, searchAttributes: ['OrderId'] });
    assert.equal((await operator.listSearchAttributes({ namespace })).customAttributes?.OrderId, undefined);
    await assert.rejects(
      operator.addSearchAttributes({ namespace, searchAttributes: { WorkflowId: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD } }),
      /reserved/,
    );
  });

  it('ends an empty long poll with the all-default response', async () => {
    const started = Date.now();
    const response = await poll(`empty-${randomUUID()}`);
    assert.ok(Date.now() - started >= 250);
    assert.equal(response.taskToken?.length ?? 0, 0);
    assert.equal(response.workflowExecution, null);
  });

  it('does not hand a task to a poll the client cancelled', async () => {
    const queue = `cancel-${randomUUID()}`;
    const controller = new AbortController();
    const abandoned = connection.withAbortSignal(controller.signal, () => poll(queue));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    await assert.rejects(abandoned);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const { runId } = await start(queue);
    const task = await poll(queue);
    assert.equal(task.workflowExecution?.runId, runId);
  });

  it('is idempotent per request id', async () => {
    const queue = `idem-${randomUUID()}`;
    const requestId = randomUUID();
    const first = await start(queue, `idem-${randomUUID()}`, requestId);
    const again = await start(queue, first.workflowId, requestId);
    assert.equal(again.runId, first.runId);
  });

  it('sends partial history on the sticky queue and falls back to the normal queue after its schedule-to-start timeout', async () => {
    const queue = `sticky-${randomUUID()}`;
    const stickyQueue = `${queue}-sticky`;
    const { workflowId, runId } = await start(queue);
    const first = await poll(queue);
    assert.deepEqual(types(first.history?.events), [
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    await svc().respondWorkflowTaskCompleted({
      namespace,
      taskToken: first.taskToken,
      identity: 'raw-worker',
      commands: [],
      stickyAttributes: {
        workerTaskQueue: { name: stickyQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: queue },
        scheduleToStartTimeout: { nanos: 300_000_000 },
      },
    });
    await svc().signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId, runId },
      signalName: 's1',
      identity: 'test',
      requestId: randomUUID(),
    });
    const sticky = await poll(stickyQueue, TaskQueueKind.TASK_QUEUE_KIND_STICKY);
    assert.equal(Number(sticky.previousStartedEventId), 3);
    assert.equal(Number(sticky.history?.events?.[0]?.eventId), 4);
    assert.deepEqual(types(sticky.history?.events), [
      EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    await svc().respondWorkflowTaskCompleted({
      namespace,
      taskToken: sticky.taskToken,
      identity: 'raw-worker',
      commands: [],
      stickyAttributes: {
        workerTaskQueue: { name: stickyQueue, kind: TaskQueueKind.TASK_QUEUE_KIND_STICKY, normalName: queue },
        scheduleToStartTimeout: { nanos: 300_000_000 },
      },
    });
    // nobody polls the sticky queue now: after 300 ms the task moves to the normal queue, with full history
    await svc().signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId, runId },
      signalName: 's2',
      identity: 'test',
      requestId: randomUUID(),
    });
    const normal = await poll(queue);
    const events = normal.history?.events ?? [];
    assert.equal(Number(events[0]?.eventId), 1);
    const timedOut = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT);
    assert.equal(timedOut?.workflowTaskTimedOutEventAttributes?.timeoutType, TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START);
    assert.equal(Number(timedOut?.workflowTaskTimedOutEventAttributes?.startedEventId), 0);
    assert.equal(events[events.length - 1]?.eventType, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  });

  it('rejects a completion while new events wait with UnhandledCommand', async () => {
    const queue = `unhandled-${randomUUID()}`;
    const { workflowId, runId } = await start(queue);
    const task = await poll(queue);
    await svc().signalWorkflowExecution({
      namespace,
      workflowExecution: { workflowId, runId },
      signalName: 'late',
      identity: 'test',
      requestId: randomUUID(),
    });
    await assert.rejects(
      svc().respondWorkflowTaskCompleted({
        namespace,
        taskToken: task.taskToken,
        identity: 'raw-worker',
        commands: [{ commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION, completeWorkflowExecutionCommandAttributes: {} }],
      }),
      /UnhandledCommand/,
    );
    const next = await poll(queue);
    const events = types(next.history?.events);
    assert.deepEqual(events.slice(3), [
      EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
      EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    await svc().respondWorkflowTaskCompleted({
      namespace,
      taskToken: next.taskToken,
      identity: 'raw-worker',
      commands: [{ commandType: CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION, completeWorkflowExecutionCommandAttributes: {} }],
    });
    // a stale token is NOT_FOUND
    await assert.rejects(
      svc().respondWorkflowTaskCompleted({ namespace, taskToken: next.taskToken, commands: [] }),
      /NOT_FOUND|completed/i,
    );
  });

  it('retries a failed workflow task as the next attempt and times out an unanswered one', async () => {
    const queue = `wftfail-${randomUUID()}`;
    await svc().startWorkflowExecution({
      namespace,
      workflowId: `wftfail-${randomUUID()}`,
      workflowType: { name: 'raw' },
      taskQueue: { name: queue },
      requestId: randomUUID(),
      workflowTaskTimeout: { nanos: 400_000_000 },
    });
    const first = await poll(queue);
    assert.equal(first.attempt, 1);
    await svc().respondWorkflowTaskFailed({
      namespace,
      taskToken: first.taskToken,
      cause: temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE,
      failure: { message: 'boom' },
      identity: 'raw-worker',
    });
    const second = await poll(queue);
    assert.equal(second.attempt, 2);
    const failed = second.history?.events?.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
    assert.equal(failed?.workflowTaskFailedEventAttributes?.failure?.message, 'boom');
    // attempt 2 is transient: its Scheduled/Started events are shown but not written
    const secondEvents = second.history?.events ?? [];
    assert.deepEqual(types(secondEvents.slice(-2)), [
      EventType.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    assert.equal(Number(second.startedEventId), Number(secondEvents[secondEvents.length - 1]?.eventId));
    const persisted = await svc().getWorkflowExecutionHistory({ namespace, execution: second.workflowExecution });
    assert.equal(persisted.history?.events?.length, secondEvents.length, 'the worker fetch carries the transient events too');
    const described = await svc().describeWorkflowExecution({ namespace, execution: second.workflowExecution });
    assert.equal(Number(described.workflowExecutionInfo?.historyLength), secondEvents.length - 2);
    // no answer: the start-to-close timeout (400 ms) hands out attempt 3, leaving no trace of attempt 2
    let third = await poll(queue);
    for (let i = 0; i < 5 && !third.taskToken?.length; i++) third = await poll(queue);
    assert.equal(third.attempt, 3);
    assert.equal(
      third.history?.events?.some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT),
      false,
    );
    assert.equal(third.history?.events?.length, secondEvents.length);
    await assert.rejects(svc().respondWorkflowTaskCompleted({ namespace, taskToken: second.taskToken, commands: [] }), /not found/i);
    // a workflow whose task keeps failing is not ready for queries
    await assert.rejects(
      svc().queryWorkflow({ namespace, execution: { workflowId: third.workflowExecution?.workflowId }, query: { queryType: 'q' } }),
      /not ready/,
    );
    // newest events first
    const reverse = await svc().getWorkflowExecutionHistoryReverse({
      namespace,
      execution: { workflowId: third.workflowExecution?.workflowId },
      maximumPageSize: 2,
    });
    assert.deepEqual(types(reverse.history?.events), [
      EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED,
      EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    ]);
    assert.ok((reverse.nextPageToken?.length ?? 0) > 0);
  });

  it('hands eagerly requested activities to the completing worker', async () => {
    const queue = `eager-${randomUUID()}`;
    await start(queue);
    const task = await poll(queue);
    const completed = await svc().respondWorkflowTaskCompleted({
      namespace,
      taskToken: task.taskToken,
      identity: 'raw-worker',
      commands: [
        {
          commandType: CommandType.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK,
          scheduleActivityTaskCommandAttributes: {
            activityId: '1',
            activityType: { name: 'act' },
            taskQueue: { name: queue },
            startToCloseTimeout: { seconds: Long.fromNumber(10) },
            requestEagerExecution: true,
          },
        },
      ],
    });
    assert.equal(completed.activityTasks?.length, 1);
    assert.equal(completed.activityTasks?.[0]?.activityId, '1');
    await svc().respondActivityTaskCompleted({ namespace, taskToken: completed.activityTasks?.[0]?.taskToken, identity: 'raw-worker' });
    const next = await poll(queue);
    assert.deepEqual(types(next.history?.events).slice(4, 7), [
      EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED,
      EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
      EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
    ]);
  });

  it('describes task queue pollers and deletes executions', async () => {
    const queue = `describe-${randomUUID()}`;
    const { workflowId } = await start(queue);
    await poll(queue);
    const described = await svc().describeTaskQueue({
      namespace,
      taskQueue: { name: queue },
      taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    });
    assert.deepEqual(
      described.pollers?.map((p) => p.identity),
      ['raw-worker'],
    );
    await svc().deleteWorkflowExecution({ namespace, workflowExecution: { workflowId } });
    await assert.rejects(svc().describeWorkflowExecution({ namespace, execution: { workflowId } }), /not found/i);
  });

  it('lists with filters and ORDER BY', async () => {
    const queue = `list-${randomUUID()}`;
    const started = [];
    for (let i = 0; i < 3; i++) {
      started.push(await start(queue, `list-${i}-${randomUUID()}`));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const ascending = await svc().listWorkflowExecutions({ namespace, query: `TaskQueue = '${queue}' ORDER BY StartTime ASC` });
    assert.deepEqual(
      ascending.executions?.map((e) => e.execution?.workflowId),
      started.map((s) => s.workflowId),
    );
    const descending = await svc().listWorkflowExecutions({
      namespace,
      query: `TaskQueue = '${queue}' AND WorkflowId STARTS_WITH 'list-' ORDER BY StartTime DESC`,
    });
    assert.deepEqual(
      descending.executions?.map((e) => e.execution?.workflowId),
      started.map((s) => s.workflowId).reverse(),
    );
    const none = await svc().countWorkflowExecutions({
      namespace,
      query: `TaskQueue = '${queue}' AND ExecutionStatus IN ('Completed', 'Failed')`,
    });
    assert.equal(Number(none.count), 0);
    await assert.rejects(svc().listWorkflowExecutions({ namespace, query: `TaskQueue = ` }), /invalid query/);
  });

  it('ends the long poll for the close event with an empty page and a token', async () => {
    const queue = `close-${randomUUID()}`;
    const { workflowId, runId } = await start(queue);
    const response = await svc().getWorkflowExecutionHistory({
      namespace,
      execution: { workflowId, runId },
      waitNewEvent: true,
      historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    });
    assert.equal(response.history?.events?.length ?? 0, 0);
    assert.ok((response.nextPageToken?.length ?? 0) > 0);
  });
});
