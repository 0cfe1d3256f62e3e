/** One write through the API: who, when, what, from where (docs/security.md, "Audit trail"). Never a secret value. */
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../sql';

/** Who made the change: a person's or a service account's token, a webhook trigger, a schedule, the service itself. */
export type AuditActorKind = 'user' | 'service_token' | 'webhook' | 'schedule' | 'system';

@Entity({ name: 'audit_events' })
export class AuditEventEntity {
  /** Ascending in insertion order (an identity column): the cursor of the read route pages on it. */
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber }) id!: number;
  @Column({ name: 'organization_id', type: 'text' }) organizationId!: string;
  @Column({ name: 'occurred_at', type: 'timestamptz' }) occurredAt!: Date;
  @Column({ name: 'actor_kind', type: 'text' }) actorKind!: AuditActorKind;
  /** The token's subject (user id), or the webhook trigger (`<workflowId>/<triggerId>`). */
  @Column({ name: 'actor_id', type: 'text' }) actorId!: string;
  /** Dotted: `workflow.definition.create`, `grant.create`, `execution.cancel`, … */
  @Column({ type: 'text' }) action!: string;
  @Column({ name: 'target_nrn', type: 'text', nullable: true }) targetNrn!: string | null;
  @Column({ name: 'target_id', type: 'text', nullable: true }) targetId!: string | null;
  /** The server's own id of the request. */
  @Column({ name: 'request_id', type: 'text' }) requestId!: string;
  /** The client's `X-Request-Id`, when it sent one. */
  @Column({ name: 'client_request_id', type: 'text', nullable: true }) clientRequestId!: string | null;
  /** Where the request came from: the peer, or through TRUSTED_PROXIES the forwarded client. */
  @Column({ name: 'client_address', type: 'text', nullable: true }) clientAddress!: string | null;
  /** The API process that served the request (`REPLICA_ID`, default hostname:pid). */
  @Column({ type: 'text' }) replica!: string;
  /** Ids and changed fields; a compact diff for definitions; never a config value or a signal payload. */
  @Column({ type: 'jsonb' }) details!: Record<string, unknown>;
}
