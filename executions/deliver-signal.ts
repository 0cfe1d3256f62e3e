/**
 * Signal delivery, shared by the signal endpoints and webhook ingress. Each
 * delivery is a Temporal update whose validator rejects atomically when
 * nothing waits on the name, so "not waiting" is decided by the workflow.
 */
import { ServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError, type Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { ExecutionWaitRepository } from '../db/repositories/execution-wait-repository';
import { deliverSignalUpdate } from '../workflows/messages';
import { ExecutorUnavailable } from './errors';

/** gRPC NOT_FOUND / FAILED_PRECONDITION: the workflow is gone or no longer accepts updates. */
const GONE_CODES = new Set([5, 9]);
/** An update waits for a worker to run its validator; without one the request must end (503), not hang. */
export const DELIVERY_DEADLINE_MS = 10_000;

export type Delivery = 'delivered' | 'not-waiting';

/** Delivers one signal to one execution. Throws ExecutorUnavailable when Temporal cannot say. */
export async function deliver(
  client: Client,
  executionId: string,
  runId: string | null,
  request: { name: string; payload: unknown; signalId: string; correlationKey?: string },
): Promise<Delivery> {
  try {
    // Not pinned to one run: a long execution continues as new under the same workflow id.
    const handle = client.workflow.getHandle(executionId, undefined, { firstExecutionRunId: runId ?? undefined });
    // The signal id is the update id: Temporal answers a repeat (a takeover of an idempotent delivery) without delivering twice.
    await client.withDeadline(Date.now() + DELIVERY_DEADLINE_MS, () =>
      handle.executeUpdate(deliverSignalUpdate, { args: [request], updateId: request.signalId }),
    );
    return 'delivered';
  } catch (error) {
    return notWaitingOrUnavailable(error);
  }
}

/** A failed delivery update: the run does not wait (rejected, finished, unknown), else Temporal could not say. */
export function notWaitingOrUnavailable(error: unknown): 'not-waiting' {
  if (error instanceof WorkflowUpdateFailedError || error instanceof WorkflowNotFoundError) return 'not-waiting';
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  if (error instanceof ServiceError && typeof code === 'number' && GONE_CODES.has(code)) return 'not-waiting';
  throw new ExecutorUnavailable(error);
}

/**
 * Releases the oldest open wait declared with this signal name and correlation
 * key (optionally within one workflow). The recorded waits are candidates; rows
 * may be stale (released, not yet flushed), so the update's validator decides
 * and the next candidate is tried. Undefined when none waits.
 */
export async function deliverByCorrelation(
  deps: { dataSource: DataSource; temporal: Client },
  request: { organizationId: string; name: string; correlationKey: string; payload: unknown; signalId: string; workflowId?: string },
): Promise<{ executionId: string } | undefined> {
  const candidates = await new ExecutionWaitRepository(deps.dataSource.manager).findCorrelated(
    request.organizationId,
    request.name,
    request.correlationKey,
    request.workflowId,
  );
  for (const candidate of candidates) {
    const delivery = { name: request.name, payload: request.payload, signalId: request.signalId, correlationKey: request.correlationKey };
    if ((await deliver(deps.temporal, candidate.id, candidate.temporalRunId, delivery)) === 'delivered')
      return { executionId: candidate.id };
  }
  return undefined;
}
