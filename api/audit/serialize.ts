/** Audit events as the API answers them, and the opaque cursor of their pages. */
import type { AuditEventEntity } from '../../db/entities/audit-event';

export function auditEventJson(row: AuditEventEntity) {
  return {
    id: String(row.id),
    organizationId: row.organizationId,
    occurredAt: row.occurredAt.toISOString(),
    actor: { kind: row.actorKind, id: row.actorId },
    action: row.action,
    target: { nrn: row.targetNrn, id: row.targetId },
    requestId: row.requestId,
    clientRequestId: row.clientRequestId,
    clientAddress: row.clientAddress,
    replica: row.replica,
    details: row.details,
  };
}

/** The cursor after `id`: opaque to clients (base64url of the id). */
export function encodeCursor(id: number): string {
  return Buffer.from(`a:${id}`).toString('base64url');
}

/** The id a cursor stands for; undefined when it is not one of ours. */
export function decodeCursor(cursor: string): number | undefined {
  const match = /^a:([1-9][0-9]{0,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  const id = match ? Number(match[1]) : NaN;
  return Number.isSafeInteger(id) ? id : undefined;
}
