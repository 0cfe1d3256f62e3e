/**
 * The `audit_events` table: one row per write through the API, inserted with
 * the change's own entity manager (so it commits or rolls back with it), read
 * in keyset pages newest first, and deleted by age in bounded batches.
 */
import { Repository, type EntityManager } from 'typeorm';
import { AuditEventEntity, type AuditActorKind } from '../entities/audit-event';
import { rowsOf, selectColumns } from '../sql';
import { join, raw, sql, type Sql } from '../sql-builder';
import { keysetPage } from './paged-rows';

export interface NewAuditEvent {
  organizationId: string;
  actorKind: AuditActorKind;
  actorId: string;
  action: string;
  targetNrn: string | null;
  targetId: string | null;
  requestId: string;
  /** The client's `X-Request-Id` (absent: none). */
  clientRequestId?: string | null;
  /** Where the request came from (absent: not a request, or unknown). */
  clientAddress?: string | null;
  replica: string;
  details: Record<string, unknown>;
}

/**
 * The INSERT of one event: also a part of the statement of the change it describes (a data-modifying CTE,
 * ExecutionRepository.insertIdempotent), so that one statement writes both or neither. `from` (a CTE's name)
 * writes the event once per row it yields, none when it is empty.
 */
export function auditInsertSql(event: NewAuditEvent, from?: string): Sql {
  // Typed, as a selected parameter's type is not inferred from its column.
  const text = [
    event.organizationId,
    event.actorKind,
    event.actorId,
    event.action,
    event.targetNrn,
    event.targetId,
    event.requestId,
    event.replica,
    event.clientRequestId ?? null,
    event.clientAddress ?? null,
  ];
  const values = join([...text.map((value) => sql`${value}::text`), sql`${JSON.stringify(event.details)}::jsonb`], ', ');
  return sql`INSERT INTO audit_events (organization_id, actor_kind, actor_id, action, target_nrn, target_id, request_id, replica, client_request_id, client_address, details)
       ${from === undefined ? sql`VALUES (${values})` : sql`SELECT ${values} FROM ${raw(from)}`}`;
}

export interface AuditFilter {
  /** Events whose target NRN equals this one or lies beneath it. */
  nrnPrefix?: string;
  action?: string;
  actorId?: string;
  targetId?: string;
  from?: Date;
  to?: Date;
  /** Only events older than this id (the previous page's last). */
  beforeId?: number;
}

export class AuditEventRepository extends Repository<AuditEventEntity> {
  constructor(manager: EntityManager) {
    super(AuditEventEntity, manager);
  }

  /** Inserts one event; its id. */
  async record(event: NewAuditEvent): Promise<number> {
    const [row] = await rowsOf<{ id: number }>(this.manager, sql`${auditInsertSql(event)} RETURNING id::float8 AS id`);
    return row.id;
  }

  /** Merges `fields` into an event's details (the outcome of a call that is not a database write). */
  async addDetails(id: number, fields: Record<string, unknown>): Promise<void> {
    await rowsOf(this.manager, `UPDATE audit_events SET details = details || $2::jsonb WHERE id = $1`, [id, JSON.stringify(fields)]);
  }

  /** Up to `limit` events of the organization matching `filter`, newest first; `next`: the last one's id, when more follow. */
  async page(organizationId: string, filter: AuditFilter, limit: number): Promise<{ rows: AuditEventEntity[]; next?: number }> {
    const where = [sql`organization_id = ${organizationId}`];
    if (filter.nrnPrefix !== undefined) {
      // The NRN itself, or one beneath it (`…:account=2` covers `…:account=2:namespace=3`, not `…:account=21`).
      // NRNs hold no LIKE wildcards (`%`, `_`): the prefix pattern is literal, and the text_pattern_ops index serves it.
      where.push(sql`(target_nrn = ${filter.nrnPrefix} OR target_nrn LIKE ${`${filter.nrnPrefix}:%`})`);
    }
    if (filter.action !== undefined) where.push(sql`action = ${filter.action}`);
    if (filter.actorId !== undefined) where.push(sql`actor_id = ${filter.actorId}`);
    if (filter.targetId !== undefined) where.push(sql`target_id = ${filter.targetId}`);
    if (filter.from !== undefined) where.push(sql`occurred_at >= ${filter.from}`);
    if (filter.to !== undefined) where.push(sql`occurred_at < ${filter.to}`);
    if (filter.beforeId !== undefined) where.push(sql`id < ${filter.beforeId}`);
    const rows = await rowsOf<AuditEventEntity>(
      this.manager,
      sql`SELECT ${raw(selectColumns(this.manager, AuditEventEntity))} FROM audit_events
       WHERE ${join(where, ' AND ')} ORDER BY id DESC LIMIT ${limit + 1}`,
    );
    return keysetPage(
      rows,
      limit,
      (row) => row,
      (row) => row.id,
    );
  }

  /** Deletes up to `limit` events that occurred before `cutoff` (oldest first); how many went. Retention calls it until 0. */
  async deleteOlderThan(cutoff: Date, limit: number): Promise<number> {
    const deleted = await rowsOf<unknown>(
      this.manager,
      `DELETE FROM audit_events WHERE id IN (
         SELECT id FROM audit_events WHERE occurred_at < $1 ORDER BY occurred_at LIMIT $2
       ) RETURNING 1`,
      [cutoff, limit],
    );
    return deleted.length;
  }
}
