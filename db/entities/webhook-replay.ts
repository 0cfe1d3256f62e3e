/** A signed webhook request already accepted, kept (as a digest of its signature) until its window has passed. */
import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'webhook_replays' })
export class WebhookReplayEntity {
  /** SHA-256 of the verified signature, hex: the signature itself is never stored. */
  @PrimaryColumn({ type: 'text' }) digest!: string;
  /** When the signature leaves the acceptance window; the row is useless (and pruned) after it. */
  @Column({ name: 'expires_at', type: 'timestamptz' }) expiresAt!: Date;
}
