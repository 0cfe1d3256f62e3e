/** The prepareChild activity: records a sub-workflow's child execution through the execution module, returning the child's input. */
import { ApplicationFailure } from '@temporalio/common';
import {
  ChildOutOfReach,
  FlowKeyInvalid,
  FlowLimitReached,
  FlowQueueFull,
  prepareChildRun,
  RevisionNotRunnable,
  TreeBudgetExceeded,
  type PrepareDeps,
} from '../executions';
import { RUN_LIMIT_SETTINGS } from '../workflows/engine';
import type { ExecutionInput } from '../workflows/engine';
import type { ChildPreparation } from './execution-activity-types';

export async function prepareChildExecution(deps: PrepareDeps, request: ChildPreparation): Promise<ExecutionInput> {
  try {
    return await prepareChildRun(deps, request);
  } catch (error) {
    if (error instanceof RevisionNotRunnable) {
      throw ApplicationFailure.nonRetryable(
        `sub-workflow "${request.workflowId}" cannot run: ${error.miss.replace(/-/g, ' ')}`,
        'SUBWORKFLOW_NOT_FOUND',
      );
    }
    if (error instanceof TreeBudgetExceeded) {
      throw ApplicationFailure.nonRetryable(
        `sub-workflow "${request.workflowId}" cannot start: ${error.message} (${RUN_LIMIT_SETTINGS.maxExecutionsPerTree})`,
        'SUBWORKFLOW_TREE_BUDGET_EXCEEDED',
      );
    }
    if (error instanceof FlowLimitReached || error instanceof FlowQueueFull || error instanceof FlowKeyInvalid) {
      // A child never queues: its parent's step fails now rather than wait on a slot it may itself be holding.
      throw ApplicationFailure.nonRetryable(
        `sub-workflow "${request.workflowId}" cannot start: ${error.message}`,
        'SUBWORKFLOW_FLOW_LIMIT',
      );
    }
    if (error instanceof ChildOutOfReach) {
      throw ApplicationFailure.nonRetryable(`sub-workflow "${request.workflowId}" cannot run: ${error.message}`, 'SUBWORKFLOW_FORBIDDEN');
    }
    throw error;
  }
}
