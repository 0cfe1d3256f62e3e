/**
 * The one recorder of the audit trail. The route layer hands each handler a
 * trail bound to the request (its declared action, actor, request id and
 * replica); the handler records with the entity manager of the transaction
 * that makes the change, so the event commits or rolls back with it (an
 * execution start writes it in its own INSERT statement: `row`). A change
 * made outside the database (a Temporal start, cancel, terminate or signal)
 * is recorded `around` the call: before it, with the outcome written after.
 */
import type { EntityManager } from 'typeorm';
import type { AuditActorKind } from '../../db/entities/audit-event';
import { AuditEventRepository, type NewAuditEvent } from '../../db/repositories/audit-event-repository';

export interface AuditActor {
  kind: AuditActorKind;
  id: string;
}

/** What one event is about. Details hold ids and changed fields: never a secret value or a signal payload. */
export interface AuditRecord {
  /** Default: the caller's organization. */
  organizationId?: string;
  nrn: string | null;
  id: string | number | null;
  details?: Record<string, unknown>;
  /** Default: the caller (routes without a token name theirs: a webhook trigger). */
  actor?: AuditActor;
  /** Another action the route declares (`also`): a route whose write takes two forms (webhook ingress starts or signals). */
  action?: string;
}

export interface AuditRequest {
  /** The route's declared action; undefined on routes that record nothing (they say why). */
  action?: string;
  /** The other actions it declares. */
  also?: string[];
  /** The server's own request id. */
  requestId: string;
  /** The client's `X-Request-Id`, if it sent one. */
  clientRequestId?: string;
  /** Where the request came from (through trusted proxies only). */
  clientAddress?: string;
  replica: string;
  actor?: AuditActor;
  organizationId?: string;
  /** The API key whose token made the request: each event names it (`details.via_api_key`). */
  apiKeyId?: string;
}

export class AuditTrail {
  constructor(readonly request: AuditRequest) {}

  /** Records one event with `manager`: the transaction of the change it describes. Its id. */
  async record(manager: EntityManager, event: AuditRecord): Promise<number> {
    return new AuditEventRepository(manager).record(this.row(event));
  }

  /**
   * One event as the row to write, for a change whose own statement writes it too (both or neither: an execution
   * start, ExecutionRepository.insertIdempotent); checked as {@link record} checks it.
   */
  row(event: AuditRecord): NewAuditEvent {
    const { requestId, clientRequestId, clientAddress, replica } = this.request;
    const action = event.action ?? this.request.action;
    if (action === undefined) throw new Error('this route declares no audit action');
    if (action !== this.request.action && !(this.request.also ?? []).includes(action))
      throw new Error(`audit action ${action} is not one this route declares`);
    const actor = event.actor ?? this.request.actor;
    const organizationId = event.organizationId ?? this.request.organizationId;
    if (actor === undefined || organizationId === undefined) throw new Error(`audit ${action}: no actor or organization`);
    return {
      organizationId,
      actorKind: actor.kind,
      actorId: actor.id,
      action,
      targetNrn: event.nrn,
      targetId: event.id === null ? null : String(event.id),
      requestId,
      clientRequestId: clientRequestId ?? null,
      clientAddress: clientAddress ?? null,
      replica,
      details: this.request.apiKeyId === undefined ? (event.details ?? {}) : { ...event.details, via_api_key: this.request.apiKeyId },
    };
  }

  /**
   * A change the database does not hold (a Temporal call): recorded before the call (outcome `requested`, so a
   * call is never made unrecorded), then `succeeded`, or `failed` with the error's code when the call threw.
   */
  async around<T>(
    manager: EntityManager,
    event: AuditRecord,
    call: () => Promise<T>,
    /** Details known once the call answered (the execution a correlated signal reached). */
    learned: (result: T) => Record<string, unknown> = () => ({}),
  ): Promise<T> {
    const id = await this.record(manager, { ...event, details: { ...event.details, outcome: 'requested' } });
    const events = new AuditEventRepository(manager);
    let result: T;
    try {
      result = await call();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      await events.addDetails(id, { outcome: 'failed', ...(typeof code === 'string' ? { error: code } : {}) }).catch(() => undefined);
      throw error;
    }
    // The call happened: a lost outcome leaves the event `requested`, never the request failed.
    await events.addDetails(id, { ...learned(result), outcome: 'succeeded' }).catch(() => undefined);
    return result;
  }
}
