/**
 * The few helpers hand-written SQL needs, in one place. The data-access decision
 * (docs/architecture.md): the entity is the row. Simple reads and writes go through
 * repositories (`class XRepository extends Repository<XEntity>`); the statements
 * that earn hand-written SQL (CTEs, ON CONFLICT, jsonb comparisons, keyset pages)
 * select `selectColumns(...)` and return the entity type, so a column change
 * touches the migration, the entity and the API schema, and the compiler finds
 * the rest. Hand-written statements run through `rowsOf`, or `poolQuery` for the few
 * listed in hot-statements.ts; a statement built from parts is a `sql` template
 * (sql-builder.ts), which numbers its parameters itself.
 */
import type { EntityManager, EntityTarget, ObjectLiteral, ValueTransformer } from 'typeorm';
import type { HotStatement } from './hot-statements';
import { compile, isSql, type Sql } from './sql-builder';

/** PostgreSQL unique_violation (23505): the last line of idempotency, turned into a 409 by callers. */
export function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '23505';
}

/**
 * `bigint` columns filled from sequences, read as JavaScript numbers (they stay far below
 * 2^53). Declare them `@Column({ type: 'bigint', transformer: bigintAsNumber }) id!: number`;
 * `selectColumns` casts them in hand-written SQL, where transformers do not run.
 */
export const bigintAsNumber: ValueTransformer = {
  to: (value: unknown) => value,
  from: (value: unknown) => (value === null || value === undefined ? value : Number(value)),
};

/**
 * The select list that makes a raw row an entity: `alias."column" AS "property"` for every
 * column of the entity (bigint columns read as numbers through `bigintAsNumber` are cast to
 * float8). Computed once per entity and alias.
 */
export function selectColumns<T extends ObjectLiteral>(manager: EntityManager, entity: EntityTarget<T>, alias?: string): string {
  const metadata = manager.connection.getMetadata(entity);
  const key = `${metadata.tableName}:${alias ?? ''}`;
  let list = selectListCache.get(key);
  if (list === undefined) {
    const prefix = alias ? `${alias}.` : '';
    // A column declared `select: false` (a large document read on its own) is left out, as TypeORM's finds do.
    list = metadata.columns
      .filter((column) => column.isSelect)
      .map((column) => {
        const cast = column.transformer === bigintAsNumber ? '::float8' : '';
        return `${prefix}"${column.databaseName}"${cast} AS "${column.propertyName}"`;
      })
      .join(', ');
    selectListCache.set(key, list);
  }
  return list;
}
const selectListCache = new Map<string, string>();

/** A timestamptz expression as the text JavaScript's toISOString gives (what the workflow writes). */
export const isoSql = (timestamp: string): string => `to_char(${timestamp} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * Runs a hand-written statement through the entity manager (so inside a transaction, on its
 * connection) and always yields the row array: TypeORM answers UPDATE and DELETE with
 * `[rows, rowCount]` but everything else with the rows alone. A fixed statement is its text
 * with `$1…$n` and their values; a statement built from parts is a `sql` fragment
 * (db/sql-builder.ts), which numbers its own parameters.
 */
export async function rowsOf<T>(manager: Pick<EntityManager, 'query'>, statement: Sql): Promise<T[]>;
export async function rowsOf<T>(manager: Pick<EntityManager, 'query'>, sql: string, params?: unknown[]): Promise<T[]>;
export async function rowsOf<T>(manager: Pick<EntityManager, 'query'>, statement: string | Sql, params: unknown[] = []): Promise<T[]> {
  const { text, values } = textAndValues(statement, params);
  const result: unknown = await manager.query(text, values);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') return result[0] as T[];
  return result as T[];
}

function textAndValues(statement: string | Sql, params: unknown[]): { text: string; values: unknown[] } {
  return isSql(statement) ? compile(statement) : { text: statement, values: params };
}

interface PgPoolLike {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * One self-contained statement straight on the driver's pg pool, as a named (prepared once
 * per connection) statement, skipping TypeORM's query-runner bookkeeping: only the statements
 * listed in db/hot-statements.ts, each with what it saves. Inside a transaction (a manager
 * bound to a query runner) it goes through the manager like any query.
 */
export async function poolQuery<T>(manager: EntityManager, name: HotStatement, statement: Sql): Promise<T[]>;
export async function poolQuery<T>(manager: EntityManager, name: HotStatement, sql: string, params: unknown[]): Promise<T[]>;
export async function poolQuery<T>(
  manager: EntityManager,
  name: HotStatement,
  statement: string | Sql,
  params: unknown[] = [],
): Promise<T[]> {
  const pool = (manager.connection.driver as unknown as { master?: PgPoolLike }).master;
  const { text, values } = textAndValues(statement, params);
  if (manager.queryRunner !== undefined || !pool || typeof pool.query !== 'function') return rowsOf<T>(manager, text, values);
  return (await pool.query({ name, text, values })).rows as T[];
}

/** Runs a `DELETE … RETURNING 1` and answers how many rows it removed. */
export async function deletedCount(manager: Pick<EntityManager, 'query'>, deleteSql: string, params: unknown[]): Promise<number> {
  const [row] = await rowsOf<{ n: number }>(
    manager,
    `WITH deleted AS (${deleteSql} RETURNING 1) SELECT count(*)::int AS n FROM deleted`,
    params,
  );
  return row.n;
}
