/**
 * An unreachable database answers 503 with Retry-After in the route family's
 * dialect (never a 500, never a hang); a bad statement stays a 500. The errors
 * are real ones from the pg driver and TypeORM, not hand-made look-alikes.
 */
import assert from 'node:assert/strict';
import { Client, Pool } from 'pg';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { defineRoute } from '../../api/http/route';
import { createTestApp } from '../support/app';
import { assertDialect } from '../support/dialects';
import { closeTestDataSource, testDataSource } from '../support/database';
import { freePort } from '../../startup/temporal';

async function caught(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected a failure');
}

describe('database unavailable', () => {
  after(closeTestDataSource);

  it('recognizes refused connections, pool connect timeouts and terminated connections, not bad statements', async () => {
    const closed = await freePort();
    const refused = await caught(async () => {
      const client = new Client({ host: '127.0.0.1', port: closed, user: 'x', database: 'x' });
      await client.connect();
    });
    assert.ok(isDatabaseUnavailable(refused), String(refused));

    const db = await testDataSource();
    const terminated = await caught(() =>
      db.transaction(async (m) => {
        await m.query('SELECT pg_terminate_backend(pg_backend_pid())');
      }),
    );
    assert.ok(isDatabaseUnavailable(terminated), String(terminated));

    const syntax = await caught(() => db.query('SELEC 1'));
    assert.equal(isDatabaseUnavailable(syntax), false);

    // A pool with every connection taken waits at most its connect timeout.
    const url = (db.options as { url: string }).url;
    const pool = new Pool({ connectionString: url, max: 1, connectionTimeoutMillis: 200 });
    const held = await pool.connect();
    const timedOut = await caught(() => pool.query('SELECT 1'));
    held.release();
    await pool.end();
    assert.ok(isDatabaseUnavailable(timedOut), String(timedOut));
  });

  it('answers 503 with Retry-After in the route family dialect', async () => {
    const closed = await freePort();
    const routes = ['/workflows/probe-db', '/accounts/probe-db'].map((path) =>
      defineRoute({
        method: 'get',
        path,
        operationId: `probe${path.replace(/\W/g, '')}`,
        summary: 'probe',
        tags: ['probe'],
        access: { public: 'test probe' },
        responses: { 200: { description: 'never' } },
        async handler() {
          const client = new Client({ host: '127.0.0.1', port: closed, user: 'x', database: 'x' });
          await client.connect();
          return { status: 200, body: {} };
        },
      }),
    );
    const t = createTestApp({ routes });
    const engine = await t.request.get('/workflows/probe-db');
    assertDialect('problem', engine, 503);
    assert.equal(engine.headers['retry-after'], '2');
    assert.match(engine.body.detail, /database is unavailable/);
    assertDialect('admin', await t.request.get('/accounts/probe-db'), 503);
  });
});
