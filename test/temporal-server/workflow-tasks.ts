/**
 * The workflow task state machine: dispatch to a poller (WorkflowTaskStarted),
 * completion (commands → events, buffered events flushed, next task scheduled),
 * failure and start-to-close timeout.
 */
import { randomUUID } from 'node:crypto';
import type { Engine } from './engine';
import { invalidArgument, notFound, workflowCompleted } from './errors';
import { EventType, TimeoutType, WftFailedCause, api, enums, ms, ts, type Failure, L } from './proto';
import type { WorkflowRun, WftState } from './run';
import { applyCommands } from './commands';
import { validateCommands } from './command-validation';
import { releaseQueries, settleTaskQueries } from './queries';
import { applyUpdateMessage, hasUndeliveredUpdates, updateMessages } from './updates';
import { startActivityTask } from './activities';

type PollResponse = api.workflowservice.v1.IPollWorkflowTaskQueueResponse;

/** Writes WorkflowTaskStarted and builds the poll reply. */
export function startWorkflowTask(engine: Engine, run: WorkflowRun, identity: string): PollResponse {
  const wft = run.wft as WftState;
  const now = engine.now();
  if (wft.virtual) {
    // transient / speculative: Scheduled and Started are not written, only shown to the worker
    wft.scheduledEventId = run.history.length + 1;
    wft.startedEventId = run.history.length + 2;
    wft.startedIdentity = identity;
    wft.startedRequestId = randomUUID();
  } else {
    wft.startedEventId = engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, {
      workflowTaskStartedEventAttributes: {
        scheduledEventId: L(wft.scheduledEventId),
        identity,
        requestId: randomUUID(),
        historySizeBytes: L(run.historySizeBytes),
      },
    });
  }
  wft.state = 'started';
  wft.startedTime = now;
  wft.timer?.cancel();
  const nonce = wft.nonce;
  const timeoutMs = ms(run.startedAttrs.workflowTaskTimeout) || 10_000;
  wft.timer = engine.clock.after(timeoutMs, () => timeoutWorkflowTask(engine, run, nonce));
  const queries: Record<string, api.query.v1.IWorkflowQuery> = {};
  for (const query of run.pendingQueries) {
    if (query.state !== 'pending') continue;
    query.state = 'attached';
    queries[query.id] = query.query;
    wft.queryIds.push(query.id);
  }
  const messages = updateMessages(run, wft.startedEventId, wft.updateIds);
  const persisted = wft.sticky ? run.history.slice(run.lastCompletedStartedId) : run.history;
  const events = wft.virtual ? [...persisted, ...engine.virtualWftEvents(run)] : persisted;
  return {
    taskToken: Buffer.from(JSON.stringify({ k: 'w', r: run.runId, n: nonce })),
    workflowExecution: run.execution,
    workflowType: { name: run.workflowType },
    previousStartedEventId: L(run.lastCompletedStartedId),
    startedEventId: L(wft.startedEventId),
    attempt: wft.attempt,
    history: { events },
    workflowExecutionTaskQueue: { name: run.taskQueue, kind: enums.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    scheduledTime: ts(wft.scheduledTime),
    startedTime: ts(now),
    queries,
    messages,
  };
}

function wftFromToken(engine: Engine, token: Uint8Array | null | undefined): { run: WorkflowRun; wft: WftState } {
  let fields: { k?: string; r?: string; n?: number };
  try {
    fields = JSON.parse(Buffer.from(token ?? []).toString()) as typeof fields;
  } catch {
    throw notFound('invalid task token');
  }
  const run = engine.runs.get(fields.r ?? '');
  if (!run || fields.k !== 'w') throw notFound('workflow execution not found');
  if (!run.isOpen) throw workflowCompleted();
  const wft = run.wft;
  if (!wft || wft.nonce !== fields.n || wft.state !== 'started') throw notFound('workflow task not found');
  return { run, wft };
}

/** Records a failed / rejected task and schedules the next one on the normal queue. */
function failTask(
  engine: Engine,
  run: WorkflowRun,
  wft: WftState,
  cause: WftFailedCause,
  failure: Failure | null | undefined,
  identity: string,
  nextAttempt: boolean,
): void {
  if (wft.virtual) {
    // a transient / speculative task fails without a trace (the real server's behaviour)
    afterFailedTask(engine, run, wft, nextAttempt || wft.speculative);
    return;
  }
  engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED, {
    workflowTaskFailedEventAttributes: {
      scheduledEventId: L(wft.scheduledEventId),
      startedEventId: L(wft.startedEventId),
      cause,
      failure,
      identity,
    },
  });
  afterFailedTask(engine, run, wft, nextAttempt);
}

function afterFailedTask(engine: Engine, run: WorkflowRun, wft: WftState, nextAttempt: boolean): void {
  const queryIds = wft.queryIds;
  engine.clearWft(run);
  engine.setSticky(run, undefined);
  if (nextAttempt) run.wftAttempt += 1;
  // new events make the next task a normal first attempt again
  if (engine.flushBuffered(run)) run.wftAttempt = 1;
  settleTaskQueries(engine, run, queryIds, undefined);
  engine.scheduleWft(run);
  releaseQueries(engine, run);
  run.notify();
}

function timeoutWorkflowTask(engine: Engine, run: WorkflowRun, nonce: number): void {
  const wft = run.wft;
  if (!run.isOpen || !wft || wft.nonce !== nonce || wft.state !== 'started') return;
  if (!wft.virtual) {
    engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_TIMED_OUT, {
      workflowTaskTimedOutEventAttributes: {
        scheduledEventId: L(wft.scheduledEventId),
        startedEventId: L(wft.startedEventId),
        timeoutType: TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE,
      },
    });
  }
  afterFailedTask(engine, run, wft, true);
}

export function respondWorkflowTaskFailed(engine: Engine, req: api.workflowservice.v1.IRespondWorkflowTaskFailedRequest): void {
  const { run, wft } = wftFromToken(engine, req.taskToken);
  failTask(engine, run, wft, req.cause ?? WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNSPECIFIED, req.failure, req.identity ?? '', true);
}

const COMPLETION_COMMANDS = new Set<number>([
  enums.CommandType.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION,
  enums.CommandType.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION,
  enums.CommandType.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION,
  enums.CommandType.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION,
]);

export function respondWorkflowTaskCompleted(
  engine: Engine,
  req: api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest,
): api.workflowservice.v1.IRespondWorkflowTaskCompletedResponse {
  const { run, wft } = wftFromToken(engine, req.taskToken);
  const identity = req.identity ?? '';
  const commands = req.commands ?? [];
  const invalid = validateCommands(run, commands, (fields) => engine.namespaces.searchAttributeProblem(run.namespace, fields));
  if (invalid) {
    failTask(engine, run, wft, invalid.cause, { message: invalid.message }, identity, true);
    throw invalidArgument(invalid.message);
  }
  if (commands.some((command) => COMPLETION_COMMANDS.has(command.commandType ?? 0))) {
    const canceledTimers = new Set(
      commands
        .filter((c) => c.commandType === enums.CommandType.COMMAND_TYPE_CANCEL_TIMER)
        .map((c) => `timer:${c.cancelTimerCommandAttributes?.timerId ?? ''}`),
    );
    const pending = run.buffered.filter((entry) => !(entry.key && canceledTimers.has(entry.key)));
    if (pending.length > 0 || hasUndeliveredUpdates(run, wft.updateIds)) {
      engine.materializeWft(run);
      failTask(
        engine,
        run,
        wft,
        WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_UNHANDLED_COMMAND,
        { message: 'UnhandledCommand' },
        identity,
        false,
      );
      throw invalidArgument('UnhandledCommand');
    }
  }
  if (wft.speculative && isEmptySpeculativeCompletion(run, req)) return discardSpeculativeTask(engine, run, wft, req);
  engine.materializeWft(run);
  const completedEventId = engine.addEvent(run, EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, {
    workflowTaskCompletedEventAttributes: {
      scheduledEventId: L(wft.scheduledEventId),
      startedEventId: L(wft.startedEventId),
      identity,
      binaryChecksum: req.binaryChecksum,
      sdkMetadata: req.sdkMetadata,
      meteringMetadata: req.meteringMetadata,
      workerVersion: req.workerVersionStamp,
    },
  });
  run.lastCompletedStartedId = wft.startedEventId;
  run.anyWftCompleted = true;
  run.wftAttempt = 1;
  engine.clearWft(run);
  const outcome = applyCommands(engine, run, commands, req.messages ?? [], completedEventId, identity);
  if (run.isOpen) {
    const sticky = req.stickyAttributes?.workerTaskQueue?.name;
    engine.setSticky(
      run,
      sticky ? { queue: sticky, scheduleToStartMs: ms(req.stickyAttributes?.scheduleToStartTimeout) || 10_000 } : undefined,
    );
    let needTask = outcome.needWft || req.forceCreateNewWorkflowTask === true;
    if (engine.flushBuffered(run)) needTask = true;
    if (hasUndeliveredUpdates(run, wft.updateIds)) needTask = true;
    if (needTask) engine.scheduleWft(run);
  }
  settleTaskQueries(engine, run, wft.queryIds, req.queryResults);
  for (const action of outcome.afterCommit) action();
  const activityTasks = outcome.eagerActivities.filter((task) => task.isValid()).map((task) => startActivityTask(engine, task, identity));
  releaseQueries(engine, run);
  run.notify();
  return { activityTasks };
}

/** A speculative task (updates only) that recorded nothing: no commands, only rejections. */
function isEmptySpeculativeCompletion(run: WorkflowRun, req: api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest): boolean {
  if ((req.commands ?? []).length > 0 || run.buffered.length > 0 || req.forceCreateNewWorkflowTask) return false;
  return (req.messages ?? []).every((message) => message.body?.type_url?.endsWith('temporal.api.update.v1.Rejection'));
}

/** Drops a speculative task without writing anything; the worker rolls back to the last completed task. */
function discardSpeculativeTask(
  engine: Engine,
  run: WorkflowRun,
  wft: WftState,
  req: api.workflowservice.v1.IRespondWorkflowTaskCompletedRequest,
): api.workflowservice.v1.IRespondWorkflowTaskCompletedResponse {
  engine.clearWft(run);
  for (const message of req.messages ?? []) applyUpdateMessage(engine, run, message);
  const sticky = req.stickyAttributes?.workerTaskQueue?.name;
  engine.setSticky(
    run,
    sticky ? { queue: sticky, scheduleToStartMs: ms(req.stickyAttributes?.scheduleToStartTimeout) || 10_000 } : undefined,
  );
  if (hasUndeliveredUpdates(run, wft.updateIds)) engine.scheduleWft(run, true);
  settleTaskQueries(engine, run, wft.queryIds, req.queryResults);
  releaseQueries(engine, run);
  run.notify();
  return { resetHistoryEventId: L(run.lastCompletedStartedId) };
}
