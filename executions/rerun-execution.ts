/**
 * Running an execution again (POST /workflows/executions/{id}/rerun and …/retry): a new execution of the same
 * revision (never the one an alias names now) with the same inputs and trigger payload, recorded as a re-run or
 * retry of the first. A retry starts only from a failed execution and reuses the steps that completed in it
 * (./retry-seed.ts, workflows/engine/runtime/reuse.ts); a re-run runs every step again.
 */
import type { ExecutionEntity, RerunKind } from '../db/entities/execution';
import { WorkflowRevisionRepository } from '../db/repositories/workflow-revision-repository';
import type { StartDeps } from './deps';
import { ExecutionNotRetryable, RetryTooLarge, RevisionNotRunnable } from './errors';
import { retrySeed } from './retry-seed';
import { startExecution, type StartRequest } from './start-execution';

/**
 * The reused records travel in the retry's workflow input, which Temporal refuses over 2 MB: at most this many
 * bytes of them (as JSON), room left for the definition and inputs.
 */
export const RETRY_SEED_MAX_BYTES = 1536 * 1024;

export interface RerunRequest {
  original: ExecutionEntity;
  kind: RerunKind;
  createdBy: string | null;
  audit?: StartRequest['audit'];
}

/** Records and starts the new execution. Throws ExecutionNotRetryable, RetryTooLarge, RevisionNotRunnable, ExecutorUnavailable. */
export async function rerunExecution(deps: StartDeps, request: RerunRequest): Promise<ExecutionEntity> {
  const { original, kind } = request;
  if (kind === 'retry' && original.status !== 'failed') throw new ExecutionNotRetryable(original.id, original.status);
  const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(
    original.organizationId,
    original.workflowId,
    {
      revision: original.revision,
      // The flow control of the alias the first ran under (executions/flow/).
      ...(original.alias !== null ? { flowAlias: original.alias } : {}),
    },
  );
  if (typeof runnable === 'string') throw new RevisionNotRunnable(runnable);
  const reuse = kind === 'retry' ? await retrySeed(deps.dataSource.manager, original.id) : undefined;
  const bytes = reuse ? Buffer.byteLength(JSON.stringify(reuse.steps)) : 0;
  if (bytes > RETRY_SEED_MAX_BYTES) throw new RetryTooLarge(original.id, bytes, RETRY_SEED_MAX_BYTES);
  // The signal a signal-with-start run was started for was delivered to it: the new run waits for its own.
  const { signal: _delivered, ...trigger } = original.trigger;
  const { row } = await startExecution(deps, {
    organizationId: original.organizationId,
    // Recorded under the alias the first ran under (what lists filter by), running the first's revision.
    runnable: { ...runnable, alias: original.alias },
    inputs: original.inputs,
    trigger: { ...trigger, receivedAt: new Date().toISOString() },
    correlationKey: original.correlationKey ?? undefined,
    createdBy: request.createdBy,
    rerun: { of: original.id, kind, ...(reuse ? { reuse } : {}) },
    audit: request.audit,
  });
  return row;
}
