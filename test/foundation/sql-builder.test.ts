import assert from 'node:assert/strict';
import { rowsOf } from '../../db/sql';
import { bind, bound, compile, join, raw, sql } from '../../db/sql-builder';
import { testDataSource } from '../support/database';

describe('sql builder (parameters numbered by the statement, not by hand)', () => {
  it('numbers values in order of appearance and keeps them beside their numbers', () => {
    const statement = compile(sql`SELECT * FROM t WHERE a = ${'x'} AND b < ${2} AND c IS ${null}`);
    assert.equal(statement.text, 'SELECT * FROM t WHERE a = $1 AND b < $2 AND c IS $3');
    assert.deepEqual(statement.values, ['x', 2, null]);
  });

  it('numbers a composed fragment where it lands, before and after the outer values', () => {
    const inner = sql`x = ${'inner-1'} AND y = ${'inner-2'}`;
    const statement = compile(sql`SELECT ${'outer-1'} WHERE ${inner} AND z = ${'outer-2'}`);
    assert.equal(statement.text, 'SELECT $1 WHERE x = $2 AND y = $3 AND z = $4');
    assert.deepEqual(statement.values, ['outer-1', 'inner-1', 'inner-2', 'outer-2']);
  });

  it('numbers fragments nested several deep and the same fragment used twice as two sets of parameters', () => {
    const leaf = sql`k = ${'leaf'}`;
    const middle = sql`(${leaf} OR m = ${'middle'})`;
    const statement = compile(sql`${middle} AND ${middle} AND n = ${'last'}`);
    assert.equal(statement.text, '(k = $1 OR m = $2) AND (k = $3 OR m = $4) AND n = $5');
    assert.deepEqual(statement.values, ['leaf', 'middle', 'leaf', 'middle', 'last']);
  });

  it('gives a bound value one number wherever it appears, inside fragments too', () => {
    const id = bind('exec-1');
    const part = (table: string) => sql`${raw(table)} AS (SELECT ${id}, ${table})`;
    const statement = compile(sql`WITH ${part('a')}, ${part('b')} SELECT ${'tail'}, ${id}`);
    assert.equal(statement.text, 'WITH a AS (SELECT $1, $2), b AS (SELECT $1, $3) SELECT $4, $1');
    assert.deepEqual(statement.values, ['exec-1', 'a', 'b', 'tail']);
  });

  it('numbers a bound value first used inside a later fragment where it first appears', () => {
    const shared = bind(7);
    const statement = compile(sql`SELECT ${'a'}, ${sql`${'b'}, ${shared}`}, ${shared}`);
    assert.equal(statement.text, 'SELECT $1, $2, $3, $3');
    assert.deepEqual(statement.values, ['a', 'b', 7]);
  });

  it('passes an array as one parameter, not one per element', () => {
    const ids = ['a', 'b', 'c'];
    const statement = compile(sql`DELETE FROM t WHERE id = ANY(${ids}::text[]) AND n > ${1}`);
    assert.equal(statement.text, 'DELETE FROM t WHERE id = ANY($1::text[]) AND n > $2');
    assert.deepEqual(statement.values, [['a', 'b', 'c'], 1]);
    assert.equal(statement.values[0], ids, 'the array itself, for the driver to send as one value');
  });

  it('passes an empty array and an object as one parameter each', () => {
    const statement = compile(sql`SELECT ${[]}::text[], ${{ a: 1 }}::jsonb`);
    assert.equal(statement.text, 'SELECT $1::text[], $2::jsonb');
    assert.deepEqual(statement.values, [[], { a: 1 }]);
  });

  it('joins fragments with a separator, numbering across them', () => {
    const conditions = [sql`a = ${1}`, sql`b = ${2}`, raw('c IS NULL'), sql`d = ${3}`];
    const statement = compile(sql`SELECT 1 WHERE ${join(conditions, ' AND ')} LIMIT ${10}`);
    assert.equal(statement.text, 'SELECT 1 WHERE a = $1 AND b = $2 AND c IS NULL AND d = $3 LIMIT $4');
    assert.deepEqual(statement.values, [1, 2, 3, 10]);
    assert.equal(compile(sql`SELECT 1${join([], ', ')}`).text, 'SELECT 1');
    assert.equal(compile(join([sql`x = ${1}`], ', ')).text, 'x = $1');
  });

  it('puts raw text in as it is, with no parameter', () => {
    const statement = compile(sql`SELECT ${raw('"a" AS "b"')} FROM t WHERE $ = ${'$1'}`);
    assert.equal(statement.text, 'SELECT "a" AS "b" FROM t WHERE $ = $1');
    assert.deepEqual(statement.values, ['$1']);
  });

  it('compiles the same shape to the same text (a named prepared statement needs it)', () => {
    const shape = (a: unknown, b: unknown) => compile(sql`SELECT ${bind(a)} WHERE ${sql`x = ${b}`}`);
    assert.equal(shape(1, 2).text, shape('other', null).text);
  });

  it('keeps a value bound once when a helper binds it again (bound), and binds a plain value', () => {
    const id = bind('x');
    assert.equal(bound(id), id);
    const helper = (value: unknown) => {
      const once = bound(value);
      return sql`a = ${once} OR b = ${once}`;
    };
    assert.equal(compile(sql`${helper(id)} OR c = ${id} OR ${helper('y')}`).text, 'a = $1 OR b = $1 OR c = $1 OR a = $2 OR b = $2');
  });

  it('runs on PostgreSQL with the values where the numbers say (fragments, a bound value, an array)', async () => {
    const db = await testDataSource();
    const shared = bind('shared');
    const [row] = await rowsOf<{ a: string; b: number[]; c: string; same: boolean; n: number }>(
      db.manager,
      sql`SELECT ${shared}::text AS a, ${[3, 1, 2]}::int[] AS b, ${sql`${'inner'}::text || ${shared}::text`} AS c,
                 ${shared}::text = 'shared' AS same, ${join([sql`${1}::int`, sql`${2}::int`], ' + ')} AS n`,
    );
    assert.deepEqual(row, { a: 'shared', b: [3, 1, 2], c: 'innershared', same: true, n: 3 });
  });
});
