/**
 * The prepareScheduledExecution activity: records a cron tick's execution
 * through the execution module and returns its input; a revision that is gone
 * or a tick another run recorded fails the run without retries.
 */
import { ApplicationFailure } from '@temporalio/common';
import {
  DuplicateTick,
  FlowKeyInvalid,
  FlowLimitReached,
  FlowQueueFull,
  prepareScheduledRun,
  RevisionNotRunnable,
  TickQueued,
  type PrepareDeps,
} from '../executions';
import type { ExecutionInput } from '../workflows/engine';
import type { ScheduledPreparation } from './execution-activity-types';

export async function prepareScheduledExecution(deps: PrepareDeps, request: ScheduledPreparation): Promise<ExecutionInput> {
  try {
    return await prepareScheduledRun(deps, request);
  } catch (error) {
    if (error instanceof RevisionNotRunnable) {
      throw ApplicationFailure.nonRetryable(
        `the scheduled workflow cannot run: ${error.miss.replace(/-/g, ' ')}`,
        'SCHEDULED_START_FAILED',
      );
    }
    if (error instanceof DuplicateTick) {
      throw ApplicationFailure.nonRetryable(
        `tick ${error.firedAt} of trigger ${error.triggerId} already ran as ${error.executionId}`,
        'DUPLICATE_TICK',
      );
    }
    // Flow control: the tick runs later as another execution, or not at all; this schedule run ends here.
    if (error instanceof TickQueued) throw ApplicationFailure.nonRetryable(error.message, 'FLOW_QUEUED');
    if (error instanceof FlowLimitReached || error instanceof FlowQueueFull || error instanceof FlowKeyInvalid)
      throw ApplicationFailure.nonRetryable(`the tick did not run: ${error.message}`, 'FLOW_LIMIT_REACHED');
    throw error;
  }
}
