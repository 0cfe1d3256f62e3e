/**
 * The paging helpers, one per paging style the API documents:
 *
 * - `pageOf`: offset and limit with the total of the matching rows, in one round trip (the
 *   administration lists' `paging {total, offset, limit}`, the workflow and revision lists, the
 *   approvals inbox).
 * - `keysetPage`: a page after a position, read as `limit + 1` rows so that one more row says a
 *   next page exists (the executions list's and the audit trail's `nextCursor`).
 *
 * The log window (positions dense per execution, the total their last plus one) is a range of
 * positions, not a page of rows: ExecutionLogRepository.window.
 */
import type { EntityManager } from 'typeorm';
import { rowsOf } from '../sql';
import { raw, sql, type Sql } from '../sql-builder';

export interface Page<T> {
  total: number;
  rows: T[];
}

/**
 * `matching` selects the candidate rows (with `selectColumns`, so each row is an entity); `orderBy`
 * orders them by property names (`"createdAt", "id"`). The count rides on a one-row join, so a page
 * past the end still carries the total. `key` names a property never null in a row (default `id`):
 * null there marks the join's empty page.
 */
export async function pageOf<T extends object>(
  manager: EntityManager,
  query: { matching: Sql; orderBy: string; offset: number; limit: number; key?: keyof T & string },
): Promise<Page<T>> {
  const orderBy = raw(query.orderBy);
  const rows = await rowsOf<T & { __total: number }>(
    manager,
    sql`WITH matching AS (${query.matching})
     SELECT page.*, total.n AS "__total"
       FROM (SELECT count(*)::float8 AS n FROM matching) total
       LEFT JOIN LATERAL (SELECT * FROM matching ORDER BY ${orderBy} OFFSET ${query.offset} LIMIT ${query.limit}) page ON true
      ORDER BY ${orderBy}`,
  );
  return pageFromRows(rows, query.key ?? ('id' as keyof T & string));
}

/** Rows of a query that returns `page.*` and `"__total"` on a one-row join (a lone row of nulls: an empty page). */
export function pageFromRows<T extends object>(rows: Array<T & { __total: number }>, key = 'id' as keyof T & string): Page<T> {
  return {
    total: rows[0]?.__total ?? 0,
    rows: rows.filter((row) => row[key] !== null).map(({ __total: _total, ...row }) => row as unknown as T),
  };
}

/**
 * A keyset page from the rows a statement read with `LIMIT limit + 1` in page order: the first
 * `limit`, and `next`, the position of the last of them (`positionOf`), when the extra row shows
 * more follow.
 */
export function keysetPage<R, T, P>(rows: R[], limit: number, rowOf: (row: R) => T, positionOf: (row: R) => P): { rows: T[]; next?: P } {
  const kept = rows.slice(0, limit);
  return {
    rows: kept.map(rowOf),
    ...(rows.length > limit && kept.length > 0 ? { next: positionOf(kept[kept.length - 1]) } : {}),
  };
}
