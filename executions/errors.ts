/**
 * Domain errors of the execution module. Callers map them to their own
 * protocol: the API to problem+json (api/executions/errors.ts), activities to
 * non-retryable ApplicationFailures.
 */
import type { RunnableMiss } from '../db/repositories/workflow-revision-repository';

/** Temporal could not be reached or refused the call; nothing was started or delivered. */
export class ExecutorUnavailable extends Error {
  constructor(cause?: unknown) {
    super('The workflow executor (Temporal) is unavailable.', { cause });
    this.name = 'ExecutorUnavailable';
  }
}

/** The workflow, alias or revision a run names does not exist (any more). */
export class RevisionNotRunnable extends Error {
  constructor(readonly miss: RunnableMiss) {
    super(`revision not runnable: ${miss}`);
    this.name = 'RevisionNotRunnable';
  }
}

/** A cron tick that another run of the same schedule already recorded. */
export class DuplicateTick extends Error {
  constructor(
    readonly triggerId: string,
    readonly firedAt: string,
    readonly executionId: string,
  ) {
    super(`tick ${firedAt} of trigger ${triggerId} already ran as ${executionId}`);
    this.name = 'DuplicateTick';
  }
}

/** A child would take its tree past the budget of executions one root may cause (nothing was recorded). */
export class TreeBudgetExceeded extends Error {
  constructor(
    readonly rootExecutionId: string,
    readonly budget: number,
  ) {
    super(`the sub-workflow tree of execution ${rootExecutionId} may hold at most ${budget} executions below its root`);
    this.name = 'TreeBudgetExceeded';
  }
}

/** A sub-workflow whose workflow lies outside the parent workflow's NRN (api/access/workflow-reach.ts). */
export class ChildOutOfReach extends Error {
  constructor(
    readonly parentNrn: string | null,
    readonly childNrn: string,
  ) {
    super(
      parentNrn === null
        ? `the parent's workflow no longer exists, so it reaches no workflow (the child is at ${childNrn})`
        : `its workflow is at ${childNrn}, outside the parent workflow's NRN ${parentNrn}`,
    );
    this.name = 'ChildOutOfReach';
  }
}

/** A retry of an execution that did not fail (running, waiting, completed, cancelled, terminated): nothing was started. */
export class ExecutionNotRetryable extends Error {
  constructor(
    readonly executionId: string,
    readonly status: string,
  ) {
    super(`execution ${executionId} is ${status}; only a failed execution can be retried from its failed step`);
    this.name = 'ExecutionNotRetryable';
  }
}

/** A retry whose reused step records would make its workflow input larger than Temporal takes: nothing was started. */
export class RetryTooLarge extends Error {
  constructor(
    readonly executionId: string,
    readonly bytes: number,
    readonly limit: number,
  ) {
    super(`the completed steps of execution ${executionId} recorded ${bytes} bytes; a retry carries at most ${limit}`);
    this.name = 'RetryTooLarge';
  }
}

/** A flow-control key that does not render (a template error) or renders too long: nothing was recorded. */
export class FlowKeyInvalid extends Error {
  constructor(readonly reason: string) {
    super(`the flow-control key cannot be rendered: ${reason}`);
    this.name = 'FlowKeyInvalid';
  }
}

/** A start refused at its key's limit (onLimit refuse, a sub-workflow child, or a throttled child not due now). */
export class FlowLimitReached extends Error {
  constructor(
    readonly flowKey: string,
    readonly kind: string,
    readonly holders: string[],
  ) {
    super(
      holders.length > 0
        ? `${kind} key "${flowKey}" is at its limit, held by execution ${holders.join(', ')}`
        : `${kind} key "${flowKey}" is at its limit`,
    );
    this.name = 'FlowLimitReached';
  }
}

/** A start that would queue past the queue's length (per key, or all queued runs of the organization). */
export class FlowQueueFull extends Error {
  constructor(
    readonly flowKey: string,
    readonly limit: number,
    readonly scope: 'key' | 'organization',
  ) {
    super(
      scope === 'key'
        ? `the queue of key "${flowKey}" holds its ${limit} runs at most`
        : `the organization has ${limit} queued runs, the most it may have`,
    );
    this.name = 'FlowQueueFull';
  }
}

/** A cron tick that found its key full and was queued as another execution (the tick's own run ends here). */
export class TickQueued extends Error {
  constructor(readonly executionId: string) {
    super(`the tick was queued by flow control as execution ${executionId}`);
    this.name = 'TickQueued';
  }
}
