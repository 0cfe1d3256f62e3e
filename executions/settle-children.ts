/**
 * The children sweep: settles sub-workflow children whose Temporal run ended
 * without recording its end. A terminated run records nothing, and Temporal
 * terminates a child still running when its parent closes under the TERMINATE
 * parent close policy: a waited-for child whose parent ended first (it failed
 * on a sibling, was cancelled or terminated), and, before fire-and-forget
 * children were abandoned (workflows/execution-effects.ts), every such child.
 * A child recorded by prepareChild whose parent ended before starting it never
 * ran at all. Their rows said `running` (or `waiting`) for good.
 *
 * Candidates are children still live whose parent ended more than the grace
 * period ago (ExecutionSweepRepository.findLiveChildrenOfEnded): by then a start the
 * parent issued has happened. Each is looked up in Temporal: a terminated run,
 * or none, settles the row as `terminated`; a running one (an abandoned
 * fire-and-forget child) is left to record its own end and looked at again
 * after the grace period. Several replicas may sweep at once: finishing only
 * writes over a live row, so the first writer wins and the rest change nothing.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { endRun } from './flow/end-run';
import type { ExecutionEntity } from '../db/entities/execution';
import { ExecutionSweepRepository } from '../db/repositories/execution-sweep-repository';
import type { ReconcilerDeps, SweepOptions } from './reconcile-starts';
import { DEFAULT_GRACE_MS } from './reconcile-starts';

export interface ChildrenSweepResult {
  /** Rows settled as terminated. */
  settled: string[];
  /** Runs still going (or closed some other way, logged): left as they are. */
  left: string[];
  /** Temporal could not answer; the next sweep retries. */
  failed: string[];
}

const DEFAULT_BATCH_SIZE = 50;

export async function settleChildren(
  deps: Pick<ReconcilerDeps, 'dataSource' | 'temporal' | 'logger'>,
  options: SweepOptions = {},
): Promise<ChildrenSweepResult> {
  const sweep = new ExecutionSweepRepository(deps.dataSource.manager);
  const rows = await sweep.findLiveChildrenOfEnded({
    temporalNamespace: deps.temporal.options.namespace,
    graceMs: options.graceMs ?? DEFAULT_GRACE_MS,
    limit: options.batchSize ?? DEFAULT_BATCH_SIZE,
    organizationId: options.organizationId,
  });
  const result: ChildrenSweepResult = { settled: [], left: [], failed: [] };
  for (const row of rows) {
    try {
      const message = await whyEnded(deps, row);
      if (message === undefined) {
        await sweep.touch(row.id);
        result.left.push(row.id);
        continue;
      }
      // A slot it held goes to the next queued run by the flow sweep that follows this one (startup/execution-reconciler.ts).
      await endRun({ dataSource: deps.dataSource }, row.id, 'terminated', null, { type: 'TERMINATED', message });
      result.settled.push(row.id);
      deps.logger.info({ executionId: row.id, parentExecutionId: row.parentExecutionId }, 'child execution settled');
    } catch (error) {
      result.failed.push(row.id);
      deps.logger.warn({ err: error, executionId: row.id }, 'child execution could not be settled; the next sweep retries');
    }
  }
  return result;
}

/** Why the child's run is over without a record (its row's error message), or undefined while it goes on. */
async function whyEnded(deps: Pick<ReconcilerDeps, 'temporal' | 'logger'>, row: ExecutionEntity): Promise<string | undefined> {
  let status: string;
  try {
    status = (await deps.temporal.workflow.getHandle(row.id).describe()).status.name;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return `never started: its parent execution ${row.parentExecutionId} ended first`;
  }
  if (status === 'TERMINATED') return `terminated when its parent execution ${row.parentExecutionId} ended`;
  // Running, or a run that ended otherwise and records its own end (or says why it could not).
  if (status !== 'RUNNING') deps.logger.warn({ executionId: row.id, status }, 'child execution ended in Temporal but not in its record');
  return undefined;
}
