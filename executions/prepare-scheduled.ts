/**
 * A cron tick: resolve the revision the schedule names, record the execution
 * under the run's Temporal workflow id with the idempotency key
 * `cron:<triggerId>:<tick floored to the second>` (alias `latest`; another
 * alias appends `@<alias>`), and return its input. The run's inputs are the
 * tick (`{firedAt, schedule}`), as its trigger's payload is.
 */
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import type { ExecutionInput, ScheduledStart, TriggerInfo } from '../workflows/engine';
import { DuplicateTick, RevisionNotRunnable, TickQueued } from './errors';
import { cancelInTemporal } from './flow/promote';
import { newExecutionId } from './ids';
import type { PrepareDeps } from './prepare-child';
import { recordRun } from './record-run';

/** What a scheduled run asks for (the prepareScheduledExecution activity's request). */
export interface ScheduledRunRequest {
  start: ScheduledStart;
  /** The Temporal workflow id the schedule gave this run: it becomes the execution id. */
  executionId: string;
  runId: string;
  /** When the tick fired (ms); floored to the second it makes the idempotency key. */
  firedAt: number;
}

/**
 * One run per tick of one alias's trigger. `latest` keeps the compatible engine's documented key; any
 * other alias appends its name, so two active aliases running the same trigger step both run the tick.
 */
export function cronIdempotencyKey(alias: string, triggerId: string, firedAt: string): string {
  return alias === 'latest' ? `cron:${triggerId}:${firedAt}` : `cron:${triggerId}:${firedAt}@${alias}`;
}

/**
 * Throws RevisionNotRunnable when the revision is gone, DuplicateTick when another run recorded this tick, and
 * under flow control TickQueued when the tick was queued (as another execution: this run's id names the schedule's
 * running workflow, which cannot start again later) and FlowLimitReached when it was refused.
 */
export async function prepareScheduledRun(deps: PrepareDeps, request: ScheduledRunRequest): Promise<ExecutionInput> {
  const { start } = request;
  const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(start.organizationId, start.workflowId, {
    revision: start.revision,
    flowAlias: start.alias,
  });
  if (typeof runnable === 'string') throw new RevisionNotRunnable(runnable);
  const firedAt = new Date(Math.floor(request.firedAt / 1000) * 1000).toISOString();
  const trigger: TriggerInfo = {
    stepId: start.trigger.id,
    source: 'cron',
    payload: { firedAt, schedule: start.trigger.schedule },
    receivedAt: firedAt,
  };
  // Per alias: two active aliases run the same trigger step on the same tick, each its own run.
  const idempotencyKey = cronIdempotencyKey(start.alias, start.trigger.id, firedAt);
  const { row, created, input, flow } = await recordRun(deps.dataSource, {
    id: request.executionId,
    organizationId: start.organizationId,
    runnable: { ...runnable, alias: start.alias },
    // The compatible engine's `workflow.inputs.firedAt` and `workflow.inputs.schedule`.
    inputs: { firedAt, schedule: start.trigger.schedule },
    trigger,
    idempotencyKey,
    createdBy: null,
    temporalNamespace: deps.temporalNamespace,
    settings: { publicBaseUrl: deps.publicBaseUrl, limits: deps.limits },
    flowCaller: { kind: 'scheduled', queuedId: newExecutionId() },
  });
  if (row.status === 'queued') throw new TickQueued(row.id);
  if (flow && flow.cancelled.length > 0 && deps.temporal) await cancelInTemporal(deps.temporal, flow.cancelled);
  // The same tick recorded by another run (a retried start): this run is the duplicate and does nothing.
  if (!created && row.id !== request.executionId) throw new DuplicateTick(start.trigger.id, firedAt, row.id);
  await new ExecutionRepository(deps.dataSource.manager).setTemporalRunId(request.executionId, request.runId);
  return input;
}
