/** Workflow task commands → history events (in command order), plus the work to do after commit. */
import { randomUUID } from 'node:crypto';
import type { ActivityTask, Engine } from './engine';
import { invalidArgument } from './errors';
import { EventType, RetryState, Status, enums, ms, num, type Command, type HistoryEvent, type ProtocolMessage, L } from './proto';
import type { WorkflowRun } from './run';
import { requestCancelActivity, scheduleActivity, startActivityClock } from './activities';
import { continueChain, continueCron, finishRun } from './run-close';
import { evaluateRetry } from './retry';
import { applyUpdateMessage } from './updates';
import { cancelExternal, signalExternal, startChild } from './children';

const T = enums.CommandType;

export interface CommandOutcome {
  needWft: boolean;
  afterCommit: Array<() => void>;
  /** Activities the completing worker asked to run eagerly (dispatched in the reply). */
  eagerActivities: ActivityTask[];
}

export function applyCommands(
  engine: Engine,
  run: WorkflowRun,
  commands: Command[],
  messages: ProtocolMessage[],
  completedEventId: number,
  identity: string,
): CommandOutcome {
  const outcome: CommandOutcome = { needWft: false, afterCommit: [], eagerActivities: [] };
  const unprocessed = new Map(messages.map((m) => [m.id ?? '', m]));
  const event = (type: EventType, attrs: HistoryEvent): number => engine.addEvent(run, type, attrs);
  for (const command of commands) {
    if (!run.isOpen) break;
    const meta = command.userMetadata ? { userMetadata: command.userMetadata } : {};
    switch (command.commandType) {
      case T.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: {
        const activity = scheduleActivity(engine, run, command.scheduleActivityTaskCommandAttributes ?? {}, completedEventId);
        if (command.userMetadata) run.history[activity.scheduledEventId - 1].userMetadata = command.userMetadata;
        const eager = command.scheduleActivityTaskCommandAttributes?.requestEagerExecution === true && activity.taskQueue === run.taskQueue;
        outcome.afterCommit.push(() => {
          const task = startActivityClock(engine, run, activity, eager);
          if (task) outcome.eagerActivities.push(task);
        });
        break;
      }
      case T.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK: {
        const id = num(command.requestCancelActivityTaskCommandAttributes?.scheduledEventId);
        const activity = run.activities.get(id);
        if (activity && requestCancelActivity(engine, run, activity, completedEventId, identity)) outcome.needWft = true;
        break;
      }
      case T.COMMAND_TYPE_START_TIMER: {
        const a = command.startTimerCommandAttributes ?? {};
        const timerId = a.timerId ?? '';
        const startedEventId = event(EventType.EVENT_TYPE_TIMER_STARTED, {
          ...meta,
          timerStartedEventAttributes: {
            timerId,
            startToFireTimeout: a.startToFireTimeout,
            workflowTaskCompletedEventId: L(completedEventId),
          },
        });
        const timer: { startedEventId: number; handle?: ReturnType<typeof engine.clock.after>; fired: boolean } = {
          startedEventId,
          fired: false,
        };
        run.timers.set(timerId, timer);
        const delay = ms(a.startToFireTimeout);
        outcome.afterCommit.push(() => {
          timer.handle = engine.clock.after(delay, () => {
            timer.fired = true;
            engine.deliver(run, {
              key: `timer:${timerId}`,
              write: () => {
                run.timers.delete(timerId);
                event(EventType.EVENT_TYPE_TIMER_FIRED, { timerFiredEventAttributes: { timerId, startedEventId: L(startedEventId) } });
              },
            });
          });
        });
        break;
      }
      case T.COMMAND_TYPE_CANCEL_TIMER: {
        const timerId = command.cancelTimerCommandAttributes?.timerId ?? '';
        const timer = run.timers.get(timerId);
        if (!timer) break;
        timer.handle?.cancel();
        run.timers.delete(timerId);
        run.buffered = run.buffered.filter((entry) => entry.key !== `timer:${timerId}`);
        event(EventType.EVENT_TYPE_TIMER_CANCELED, {
          ...meta,
          timerCanceledEventAttributes: {
            timerId,
            startedEventId: L(timer.startedEventId),
            workflowTaskCompletedEventId: L(completedEventId),
            identity,
          },
        });
        break;
      }
      case T.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION: {
        const result = command.completeWorkflowExecutionCommandAttributes?.result;
        const eventId = event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED, {
          workflowExecutionCompletedEventAttributes: { result, workflowTaskCompletedEventId: L(completedEventId) },
        });
        const nextRunId = continueCron(engine, run, result);
        const attrs = run.history[eventId - 1].workflowExecutionCompletedEventAttributes;
        if (attrs && nextRunId) attrs.newExecutionRunId = nextRunId;
        finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_COMPLETED, nextRunId);
        break;
      }
      case T.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION: {
        const failure = command.failWorkflowExecutionCommandAttributes?.failure;
        const attempt = run.startedAttrs.attempt ?? 1;
        const decision = evaluateRetry(
          run.startedAttrs.retryPolicy,
          attempt,
          failure,
          engine.now(),
          ms(run.startedAttrs.workflowExecutionExpirationTime),
        );
        const eventId = event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED, {
          workflowExecutionFailedEventAttributes: {
            failure,
            retryState: decision.retryState,
            workflowTaskCompletedEventId: L(completedEventId),
          },
        });
        if (decision.retryState === RetryState.RETRY_STATE_IN_PROGRESS) {
          const next = continueChain(
            engine,
            run,
            { attempt: attempt + 1, continuedFailure: failure, initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_RETRY },
            decision.delayMs,
          );
          const attrs = run.history[eventId - 1].workflowExecutionFailedEventAttributes;
          if (attrs) attrs.newExecutionRunId = next.runId;
          finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_FAILED, next.runId);
        } else {
          const nextRunId = continueCron(engine, run, undefined, failure);
          const attrs = run.history[eventId - 1].workflowExecutionFailedEventAttributes;
          if (attrs && nextRunId) attrs.newExecutionRunId = nextRunId;
          finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_FAILED, nextRunId);
        }
        break;
      }
      case T.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
        event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED, {
          workflowExecutionCanceledEventAttributes: {
            details: command.cancelWorkflowExecutionCommandAttributes?.details,
            workflowTaskCompletedEventId: L(completedEventId),
          },
        });
        finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_CANCELED);
        break;
      case T.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: {
        const a = command.continueAsNewWorkflowExecutionCommandAttributes ?? {};
        const newRunIdPlaceholder = randomUUID();
        const eventId = event(EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW, {
          workflowExecutionContinuedAsNewEventAttributes: {
            newExecutionRunId: newRunIdPlaceholder,
            workflowType: a.workflowType?.name ? a.workflowType : run.startedAttrs.workflowType,
            taskQueue: a.taskQueue?.name ? a.taskQueue : run.startedAttrs.taskQueue,
            input: a.input,
            workflowRunTimeout: ms(a.workflowRunTimeout) > 0 ? a.workflowRunTimeout : run.startedAttrs.workflowRunTimeout,
            workflowTaskTimeout: ms(a.workflowTaskTimeout) > 0 ? a.workflowTaskTimeout : run.startedAttrs.workflowTaskTimeout,
            workflowTaskCompletedEventId: L(completedEventId),
            backoffStartInterval: a.backoffStartInterval,
            initiator: a.initiator || enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
            lastCompletionResult: a.lastCompletionResult,
            header: a.header,
            memo: a.memo,
            searchAttributes: a.searchAttributes,
          },
        });
        const attrs = run.history[eventId - 1].workflowExecutionContinuedAsNewEventAttributes ?? {};
        const next = continueChain(
          engine,
          run,
          {
            workflowType: attrs.workflowType,
            taskQueue: attrs.taskQueue,
            input: a.input,
            header: a.header,
            workflowRunTimeout: attrs.workflowRunTimeout,
            workflowTaskTimeout: attrs.workflowTaskTimeout,
            retryPolicy: a.retryPolicy ?? run.startedAttrs.retryPolicy,
            memo: a.memo ?? run.memo,
            searchAttributes: a.searchAttributes ?? { indexedFields: run.searchAttributes },
            lastCompletionResult: a.lastCompletionResult,
            initiator: enums.ContinueAsNewInitiator.CONTINUE_AS_NEW_INITIATOR_WORKFLOW,
            attempt: 1,
          },
          ms(a.backoffStartInterval),
        );
        attrs.newExecutionRunId = next.runId;
        finishRun(engine, run, Status.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW, next.runId);
        break;
      }
      case T.COMMAND_TYPE_RECORD_MARKER: {
        const a = command.recordMarkerCommandAttributes ?? {};
        event(EventType.EVENT_TYPE_MARKER_RECORDED, {
          ...meta,
          markerRecordedEventAttributes: {
            markerName: a.markerName,
            details: a.details,
            header: a.header,
            failure: a.failure,
            workflowTaskCompletedEventId: L(completedEventId),
          },
        });
        break;
      }
      case T.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: {
        const fields = command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes?.indexedFields ?? {};
        for (const [key, value] of Object.entries(fields)) {
          if (!value.data || value.data.length === 0 || Buffer.from(value.data).toString() === 'null') delete run.searchAttributes[key];
          else run.searchAttributes[key] = value;
        }
        event(EventType.EVENT_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES, {
          upsertWorkflowSearchAttributesEventAttributes: {
            searchAttributes: { indexedFields: fields },
            workflowTaskCompletedEventId: L(completedEventId),
          },
        });
        break;
      }
      case T.COMMAND_TYPE_MODIFY_WORKFLOW_PROPERTIES: {
        const upserted = command.modifyWorkflowPropertiesCommandAttributes?.upsertedMemo;
        run.memo = { fields: { ...(run.memo.fields ?? {}), ...(upserted?.fields ?? {}) } };
        for (const [key, value] of Object.entries(upserted?.fields ?? {})) {
          if (!value.data || value.data.length === 0) delete run.memo.fields?.[key];
        }
        event(EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED, {
          workflowPropertiesModifiedEventAttributes: { upsertedMemo: upserted, workflowTaskCompletedEventId: L(completedEventId) },
        });
        break;
      }
      case T.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION: {
        const a = command.startChildWorkflowExecutionCommandAttributes ?? {};
        const initiated = {
          namespace: a.namespace || run.namespace,
          workflowId: a.workflowId,
          workflowType: a.workflowType,
          taskQueue: a.taskQueue?.name ? a.taskQueue : run.startedAttrs.taskQueue,
          input: a.input,
          workflowExecutionTimeout: a.workflowExecutionTimeout,
          workflowRunTimeout: a.workflowRunTimeout,
          workflowTaskTimeout: ms(a.workflowTaskTimeout) > 0 ? a.workflowTaskTimeout : run.startedAttrs.workflowTaskTimeout,
          parentClosePolicy: a.parentClosePolicy,
          control: a.control,
          workflowTaskCompletedEventId: L(completedEventId),
          workflowIdReusePolicy: a.workflowIdReusePolicy,
          retryPolicy: a.retryPolicy,
          cronSchedule: a.cronSchedule,
          header: a.header,
          memo: a.memo,
          searchAttributes: a.searchAttributes,
          priority: a.priority,
        };
        const initiatedEventId = event(EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED, {
          ...meta,
          startChildWorkflowExecutionInitiatedEventAttributes: initiated,
        });
        outcome.afterCommit.push(() => startChild(engine, run, initiatedEventId, initiated));
        break;
      }
      case T.COMMAND_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION: {
        const a = command.signalExternalWorkflowExecutionCommandAttributes ?? {};
        const attrs = {
          namespace: a.namespace || run.namespace,
          workflowExecution: a.execution,
          signalName: a.signalName,
          input: a.input,
          control: a.control,
          childWorkflowOnly: a.childWorkflowOnly,
          header: a.header,
          workflowTaskCompletedEventId: L(completedEventId),
        };
        const initiatedEventId = event(EventType.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
          ...meta,
          signalExternalWorkflowExecutionInitiatedEventAttributes: attrs,
        });
        outcome.afterCommit.push(() => signalExternal(engine, run, initiatedEventId, attrs));
        break;
      }
      case T.COMMAND_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION: {
        const a = command.requestCancelExternalWorkflowExecutionCommandAttributes ?? {};
        const attrs = {
          namespace: a.namespace || run.namespace,
          workflowExecution: { workflowId: a.workflowId, runId: a.runId },
          control: a.control,
          childWorkflowOnly: a.childWorkflowOnly,
          reason: a.reason,
          workflowTaskCompletedEventId: L(completedEventId),
        };
        const initiatedEventId = event(EventType.EVENT_TYPE_REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED, {
          ...meta,
          requestCancelExternalWorkflowExecutionInitiatedEventAttributes: attrs,
        });
        outcome.afterCommit.push(() => cancelExternal(engine, run, initiatedEventId, attrs));
        break;
      }
      case T.COMMAND_TYPE_PROTOCOL_MESSAGE: {
        const id = command.protocolMessageCommandAttributes?.messageId ?? '';
        const message = unprocessed.get(id);
        if (!message) throw invalidArgument(`protocol message ${id} not found`);
        unprocessed.delete(id);
        applyUpdateMessage(engine, run, message);
        break;
      }
      default:
        throw invalidArgument(`unsupported command type ${command.commandType ?? 0}`);
    }
  }
  for (const message of unprocessed.values()) if (run.isOpen) applyUpdateMessage(engine, run, message);
  return outcome;
}
