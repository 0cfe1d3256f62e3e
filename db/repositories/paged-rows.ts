/**
 * One page of entity rows and the total of the rows that match, in one round trip: the shape
 * hand-written page queries of the repositories return.
 */
import type { EntityManager } from 'typeorm';
import { rowsOf } from '../sql';

export interface Page<T> {
  total: number;
  rows: T[];
}

/**
 * `matching` selects the candidate rows (with `selectColumns`, so each row is an entity) using
 * `params`; `orderBy` orders them by property names (`"createdAt", "id"`). The count rides on a
 * one-row join, so a page past the end still carries the total.
 */
export async function pageOf<T extends { id: unknown }>(
  manager: EntityManager,
  query: { matching: string; orderBy: string; params: unknown[]; offset: number; limit: number },
): Promise<Page<T>> {
  const n = query.params.length;
  const rows = await rowsOf<T & { __total: number }>(
    manager,
    `WITH matching AS (${query.matching})
     SELECT page.*, total.n AS "__total"
       FROM (SELECT count(*)::float8 AS n FROM matching) total
       LEFT JOIN LATERAL (SELECT * FROM matching ORDER BY ${query.orderBy} OFFSET $${n + 1} LIMIT $${n + 2}) page ON true
      ORDER BY ${query.orderBy}`,
    [...query.params, query.offset, query.limit],
  );
  return pageFromRows(rows);
}

/** Rows of a query that returns `page.*` and `"__total"` on a one-row join (a lone row of nulls: an empty page). */
export function pageFromRows<T extends { id: unknown }>(rows: Array<T & { __total: number }>): Page<T> {
  return {
    total: rows[0]?.__total ?? 0,
    rows: rows.filter((row) => row.id !== null).map(({ __total: _total, ...row }) => row as unknown as T),
  };
}
