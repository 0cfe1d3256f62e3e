/** Checks on a workflow task's commands that reject the whole task before anything is written. */
import { WftFailedCause, enums, ms, num, type Command, type Payload } from './proto';
import type { WorkflowRun } from './run';

const T = enums.CommandType;

export interface InvalidCommand {
  cause: WftFailedCause;
  message: string;
}

/** Checks that would fail the whole task before anything is written. */
export function validateCommands(
  run: WorkflowRun,
  commands: Command[],
  searchAttributeProblem: (fields: Record<string, Payload> | null | undefined) => string | undefined,
): InvalidCommand | undefined {
  const activityIds = new Set([...run.activities.values()].filter((a) => a.state !== 'closing').map((a) => a.activityId));
  const timerIds = new Set(run.timers.keys());
  for (let i = 0; i < commands.length; i++) {
    const command = commands[i];
    switch (command.commandType) {
      case T.COMMAND_TYPE_SCHEDULE_ACTIVITY_TASK: {
        const a = command.scheduleActivityTaskCommandAttributes;
        if (!a?.activityId || !a.activityType?.name)
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
            message: 'ActivityId or ActivityType is not set on ScheduleActivityTaskCommand.',
          };
        if (activityIds.has(a.activityId))
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
            message: `Duplicate activity id ${a.activityId}.`,
          };
        if (ms(a.scheduleToCloseTimeout) <= 0 && ms(a.startToCloseTimeout) <= 0)
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SCHEDULE_ACTIVITY_ATTRIBUTES,
            message: 'A valid StartToClose or ScheduleToCloseTimeout is not set on ScheduleActivityTaskCommand.',
          };
        activityIds.add(a.activityId);
        break;
      }
      case T.COMMAND_TYPE_START_TIMER: {
        const id = command.startTimerCommandAttributes?.timerId ?? '';
        if (!id || timerIds.has(id))
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_START_TIMER_ATTRIBUTES,
            message: `Invalid or duplicate timer id "${id}".`,
          };
        timerIds.add(id);
        break;
      }
      case T.COMMAND_TYPE_CANCEL_TIMER: {
        const id = command.cancelTimerCommandAttributes?.timerId ?? '';
        if (!timerIds.has(id))
          return { cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_CANCEL_TIMER_ATTRIBUTES, message: `Unknown timer id "${id}".` };
        timerIds.delete(id);
        break;
      }
      case T.COMMAND_TYPE_REQUEST_CANCEL_ACTIVITY_TASK: {
        const id = num(command.requestCancelActivityTaskCommandAttributes?.scheduledEventId);
        if (!run.activities.has(id))
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_REQUEST_CANCEL_ACTIVITY_ATTRIBUTES,
            message: `No pending activity with scheduled event id ${id}.`,
          };
        break;
      }
      case T.COMMAND_TYPE_UPSERT_WORKFLOW_SEARCH_ATTRIBUTES:
      case T.COMMAND_TYPE_START_CHILD_WORKFLOW_EXECUTION:
      case T.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION: {
        const fields =
          command.upsertWorkflowSearchAttributesCommandAttributes?.searchAttributes?.indexedFields ??
          command.startChildWorkflowExecutionCommandAttributes?.searchAttributes?.indexedFields ??
          command.continueAsNewWorkflowExecutionCommandAttributes?.searchAttributes?.indexedFields;
        const problem = searchAttributeProblem(fields);
        if (problem) return { cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_SEARCH_ATTRIBUTES, message: problem };
        if (command.commandType === T.COMMAND_TYPE_CONTINUE_AS_NEW_WORKFLOW_EXECUTION && i !== commands.length - 1) {
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_COMPLETE_WORKFLOW_EXECUTION_ATTRIBUTES,
            message: 'A workflow completion command must be the last command.',
          };
        }
        break;
      }
      case T.COMMAND_TYPE_RECORD_MARKER:
        if (!command.recordMarkerCommandAttributes?.markerName)
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_RECORD_MARKER_ATTRIBUTES,
            message: 'MarkerName is not set on RecordMarkerCommand.',
          };
        break;
      case T.COMMAND_TYPE_COMPLETE_WORKFLOW_EXECUTION:
      case T.COMMAND_TYPE_FAIL_WORKFLOW_EXECUTION:
      case T.COMMAND_TYPE_CANCEL_WORKFLOW_EXECUTION:
        if (i !== commands.length - 1) {
          return {
            cause: WftFailedCause.WORKFLOW_TASK_FAILED_CAUSE_BAD_COMPLETE_WORKFLOW_EXECUTION_ATTRIBUTES,
            message: 'A workflow completion command must be the last command.',
          };
        }
        break;
      default:
        break;
    }
  }
  return undefined;
}
