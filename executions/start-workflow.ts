/**
 * The Temporal side of a start: the workflow id is the execution id and a
 * duplicate id is refused, running or closed, so an execution runs once no
 * matter how many parties (API, replicas, the start reconciler) start it.
 */
import { WorkflowExecutionAlreadyStartedError, type Client } from '@temporalio/client';
import type { ExecutionEntity } from '../db/entities/execution';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import type { ExecutionInput } from '../workflows/engine';
import { EXECUTION_WORKFLOW_TYPE } from '../workflows/engine';
import type { StartDeps } from './deps';

/**
 * Starts the Temporal workflow of a recorded execution (workflow id = execution
 * id) and resolves with its run id. Throws WorkflowExecutionAlreadyStartedError
 * when a workflow with that id exists, running or closed: an execution id
 * names one run only, so a start that comes late (a replica, the reconciler)
 * never runs an execution twice.
 */
/** How long one start may wait for Temporal before the caller hears it is unavailable. */
export const START_DEADLINE_MS = 5_000;

/**
 * True when a start failed without saying whether Temporal received it (its
 * deadline passed): the run may exist, so its record must stay for the
 * reconciler to settle, never be deleted and started afresh under a new id.
 */
export function startOutcomeUnknown(error: unknown): boolean {
  for (let current = error, depth = 0; current !== null && typeof current === 'object' && depth < 4; depth += 1) {
    if ((current as { code?: unknown }).code === GRPC_DEADLINE_EXCEEDED) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
const GRPC_DEADLINE_EXCEEDED = 4;

export async function startExecutionWorkflow(
  deps: Pick<StartDeps, 'temporal' | 'eagerStarts' | 'taskQueue'>,
  row: ExecutionEntity,
  input: ExecutionInput,
): Promise<string> {
  const starter = deps.eagerStarts ?? deps.temporal;
  // Bounded: with Temporal down the client would otherwise retry until it is back, and the caller would wait.
  const handle = await starter.connection.withDeadline(Date.now() + START_DEADLINE_MS, () =>
    starter.workflow.start(EXECUTION_WORKFLOW_TYPE, {
      taskQueue: deps.taskQueue,
      // Only asked of a worker in this process; without a free workflow task slot there the SDK starts it plainly.
      requestEagerStart: deps.eagerStarts !== undefined,
      workflowId: row.id,
      args: [input],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      // Search attributes are left out: they must be registered on the namespace first, and a missing one fails the start.
      memo: {
        organizationId: row.organizationId,
        workflowId: row.workflowId,
        workflowKey: row.workflowKey,
        revision: row.revision,
        alias: row.alias,
      },
    }),
  );
  return handle.firstExecutionRunId;
}

/**
 * The id of the first run of the execution's workflow (what temporal_run_id
 * holds, also after continue-as-new). Throws WorkflowNotFoundError when no
 * such workflow exists.
 */
export async function firstRunId(temporal: Client, executionId: string): Promise<string> {
  const description = await temporal.workflow.getHandle(executionId).describe();
  return description.raw.workflowExecutionInfo?.firstRunId || description.runId;
}

/**
 * Starts a recorded run that no caller is waiting on (a promoted queued run, a lost start), or finds the run
 * another party started first (the API, a replica, the reconciler), and records its run id either way.
 */
export async function startOrFindRun(
  deps: Pick<StartDeps, 'dataSource' | 'temporal' | 'eagerStarts' | 'taskQueue'>,
  row: ExecutionEntity,
  input: ExecutionInput,
): Promise<{ runId: string; started: boolean }> {
  let found: { runId: string; started: boolean };
  try {
    found = { runId: await startExecutionWorkflow(deps, row, input), started: true };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    found = { runId: await firstRunId(deps.temporal, row.id), started: false };
  }
  await new ExecutionRepository(deps.dataSource.manager).setTemporalRunId(row.id, found.runId);
  return found;
}
