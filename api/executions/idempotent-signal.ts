/**
 * Signal delivery under an idempotency key, across API replicas: the request
 * that claims the key (a PostgreSQL row) delivers; a repeat delivers nothing
 * and answers as the first did. A delivery that did not happen (409, 503)
 * gives the key back, so a repeat may try again. A repeat that arrives while
 * the first is still delivering waits for its answer; a claim left pending by
 * a process that died is taken over after a while, under the same signal id,
 * which is also the Temporal update id (Temporal deduplicates it).
 */
import { SignalDeliveryRepository } from '../../db/repositories/signal-delivery-repository';
import { DELIVERY_DEADLINE_MS } from '../../executions';
import type { ExecutionDeps } from './deps';
import { newSignalId } from './ids';
import { idempotencyKeyReused, signalDeliveryInProgress } from './errors';

export interface SignalAnswer {
  signalId: string;
  executionId: string;
  started: boolean;
}

/** A pending claim older than this belongs to a process that died (a delivery ends within its deadline). */
const STALE_CLAIM_MS = 3 * DELIVERY_DEADLINE_MS;
const POLL_MS = 100;

/**
 * Runs `deliver` once per (organization, key): `deliver` receives the signal
 * id to use and throws (409, 503) when nothing was delivered. Without a key
 * it simply delivers.
 */
export async function deliverOnce(
  deps: ExecutionDeps,
  request: { organizationId: string; idempotencyKey?: string; target: string },
  deliver: (signalId: string) => Promise<SignalAnswer>,
): Promise<SignalAnswer & { deduplicated: boolean }> {
  const key = request.idempotencyKey;
  if (key === undefined) return { ...(await deliver(newSignalId())), deduplicated: false };
  const deliveries = new SignalDeliveryRepository(deps.dataSource.manager);
  const { organizationId } = request;

  const deliverClaimed = async (signalId: string) => {
    try {
      const answer = await deliver(signalId);
      await deliveries.complete(organizationId, key, answer);
      return { ...answer, deduplicated: false };
    } catch (error) {
      await deliveries.release(organizationId, key, signalId);
      throw error;
    }
  };

  const deadline = Date.now() + STALE_CLAIM_MS + DELIVERY_DEADLINE_MS;
  while (Date.now() < deadline) {
    const signalId = newSignalId();
    const claimed = await deliveries.claim({
      organizationId,
      idempotencyKey: key,
      target: request.target,
      signalId,
      ttlSeconds: deps.limits.signalIdempotencySeconds,
    });
    if (claimed) return deliverClaimed(signalId);
    const existing = await deliveries.findByKey(organizationId, key);
    if (!existing) continue; // given back meanwhile: claim again
    if (existing.target !== request.target) throw idempotencyKeyReused();
    if (existing.status === 'delivered')
      return { signalId: existing.signalId, executionId: existing.executionId ?? '', started: existing.started, deduplicated: true };
    const stale = await deliveries.takeOverStale(organizationId, key, STALE_CLAIM_MS);
    if (stale) return deliverClaimed(stale.signalId);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw signalDeliveryInProgress();
}
