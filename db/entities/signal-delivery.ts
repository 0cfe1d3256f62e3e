/** A signal delivered (or being delivered) under an idempotency key: a repeat answers as the first did. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

export type SignalDeliveryStatus = 'pending' | 'delivered';

@Entity({ name: 'signal_deliveries' })
export class SignalDeliveryEntity {
  @PrimaryColumn({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @PrimaryColumn({ name: 'idempotency_key', type: 'text' }) idempotencyKey!: string;
  /** What the key was used for (route, signal name, execution or correlation key): a key names one delivery. */
  @Column({ type: 'text' }) target!: string;
  @Column({ name: 'signal_id', type: 'text' }) signalId!: string;
  @Column({ type: 'text' }) status!: SignalDeliveryStatus;
  @Column({ name: 'execution_id', type: 'text', nullable: true }) executionId!: string | null;
  /** Signal-with-start: the delivery started the execution. */
  @Column({ type: 'boolean' }) started!: boolean;
  @Column({ name: 'claimed_at', type: 'timestamptz' }) claimedAt!: Date;
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt!: Date;
}
