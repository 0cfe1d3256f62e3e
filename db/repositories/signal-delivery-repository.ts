/**
 * The `signal_deliveries` table: signal deliveries by idempotency key, shared
 * by every API replica. `claim` decides which request delivers (the primary
 * key); the others read the row and answer as it did.
 */
import { Repository, type EntityManager } from 'typeorm';
import { SignalDeliveryEntity } from '../entities/signal-delivery';
import { deletedCount, rowsOf, selectColumns } from '../sql';

export class SignalDeliveryRepository extends Repository<SignalDeliveryEntity> {
  constructor(manager: EntityManager) {
    super(SignalDeliveryEntity, manager);
  }

  /** Forgets the deliveries to these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM signal_deliveries WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /**
   * Claims the key for this request: true when it is now ours to deliver. An
   * expired row of the key (and the organization's other expired rows) is
   * forgotten first.
   */
  async claim(claim: {
    organizationId: string;
    idempotencyKey: string;
    target: string;
    signalId: string;
    ttlSeconds: number;
  }): Promise<boolean> {
    await rowsOf(this.manager, `DELETE FROM signal_deliveries WHERE organization_id = $1 AND expires_at < now()`, [claim.organizationId]);
    const inserted = await rowsOf<unknown>(
      this.manager,
      `INSERT INTO signal_deliveries (organization_id, idempotency_key, target, signal_id, status, expires_at)
       VALUES ($1, $2, $3, $4, 'pending', now() + $5::double precision * interval '1 second')
       ON CONFLICT (organization_id, idempotency_key) DO NOTHING RETURNING 1`,
      [claim.organizationId, claim.idempotencyKey, claim.target, claim.signalId, claim.ttlSeconds],
    );
    return inserted.length > 0;
  }

  async findByKey(organizationId: string, idempotencyKey: string): Promise<SignalDeliveryEntity | undefined> {
    return (await this.findOneBy({ organizationId, idempotencyKey })) ?? undefined;
  }

  /**
   * Takes over a delivery left pending longer than `staleMs` (its process died
   * mid-delivery), keeping its signal id: the delivery is retried under the
   * same Temporal update id, which Temporal deduplicates. Undefined when the
   * row is not stale (or gone).
   */
  async takeOverStale(organizationId: string, idempotencyKey: string, staleMs: number): Promise<SignalDeliveryEntity | undefined> {
    const [row] = await rowsOf<SignalDeliveryEntity>(
      this.manager,
      `UPDATE signal_deliveries SET claimed_at = now()
       WHERE organization_id = $1 AND idempotency_key = $2 AND status = 'pending'
         AND claimed_at < now() - $3::double precision * interval '1 millisecond'
       RETURNING ${selectColumns(this.manager, SignalDeliveryEntity)}`,
      [organizationId, idempotencyKey, staleMs],
    );
    return row;
  }

  /** Records the answer of a delivery that succeeded. */
  async complete(organizationId: string, idempotencyKey: string, answer: { executionId: string; started: boolean }): Promise<void> {
    await this.update(
      { organizationId, idempotencyKey },
      { status: 'delivered', executionId: answer.executionId, started: answer.started },
    );
  }

  /** Gives a key back after a delivery that did not happen (nothing waited, Temporal unavailable): a repeat may try again. */
  async release(organizationId: string, idempotencyKey: string, signalId: string): Promise<void> {
    await this.delete({ organizationId, idempotencyKey, signalId, status: 'pending' });
  }
}
