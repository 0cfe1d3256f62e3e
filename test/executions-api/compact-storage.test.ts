/**
 * A run whose later steps receive a large upstream output, end to end: the steps, state and events
 * routes answer from the compact rows (migration 1763800000300) exactly what they answer from the
 * same run stored as before (whole records, one event per row), and the response is stored once.
 *
 *   start ─▶ fetch (http-request: ~6 KB of JSON that does not compress) ─▶ got (log) ─▶ keep (no-op) ─▶ done (log)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chain, step, trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const BODY = { tokens: Array.from({ length: 32 }, () => randomBytes(144).toString('base64')) };
const BODY_BYTES = Buffer.byteLength(JSON.stringify(BODY));

describe('executions API: step payloads stored once read back as before', function () {
  this.timeout(90_000);
  const { env, org } = useExecEnv();
  let server: http.Server;
  let url: string;
  before(async () => {
    server = http.createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(BODY));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/payload`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** What a client reads of the run: every step route, the state and the event stream's text. */
  async function reads(id: string): Promise<Record<string, unknown>> {
    const get = async (path: string) => {
      const res = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body as Record<string, unknown>;
    };
    const events = await org
      .auth(env.t.request.get(`/workflows/executions/${id}/events`))
      .buffer(true)
      .parse((res, done) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => done(null, text));
      });
    return {
      steps: await get('/steps?limit=100'),
      fetch: await get('/steps/fetch'),
      keep: await get('/steps/keep'),
      state: await get('/state'),
      events: events.body as string,
    };
  }

  it('serves the same steps, state and events from compact rows as from whole ones, the response stored once', async () => {
    await publish(env, org, {
      name: 'Large upstream output',
      key: 'large-upstream',
      steps: chain(
        trigger(),
        step('fetch', 'http-request', { url, timeout: '5s' }),
        step('got', 'log', { message: 'got ${{ steps.fetch.outputs.statusCode }}' }),
        step('keep', 'no-op'),
        step('done', 'log', { message: 'done' }),
      ),
    });
    const id = await execute(env, org, 'large-upstream');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));

    const compact = await reads(id);
    const records = (compact.steps as { data: Array<Record<string, unknown>> }).data;
    const byId = Object.fromEntries(records.map((record) => [record.stepId, record]));
    const fetched = byId.fetch.items as Array<Record<string, unknown>>;
    assert.deepEqual(fetched[0].body, BODY);
    assert.deepEqual(byId.fetch.outputs, fetched[0]);
    assert.deepEqual(byId.got.items, fetched, 'the log step passes the response on');
    assert.deepEqual(byId.keep.items, fetched, 'so does the no-op');
    assert.match(compact.events as string, /event: step\.completed\ndata: \{"executionId":"[^"]+","at":"[^"]+","run":1,/);

    // Stored whole, the response would be there four times (fetch's items and outputs, got, keep).
    const [stored] = await env.db.query<Array<{ bytes: number }>>(
      `SELECT (SELECT sum(pg_column_size(s.*)) FROM execution_steps s WHERE execution_id = $1)::int
            + (SELECT COALESCE(sum(pg_column_size(p.*)), 0) FROM execution_step_payloads p WHERE execution_id = $1)::int AS bytes`,
      [id],
    );
    assert.ok(stored.bytes < BODY_BYTES * 1.2 + 5 * 300, `${stored.bytes} bytes stored for a ${BODY_BYTES}-byte response`);

    // The same run as it was stored before: whole records, one event per row.
    await env.db.transaction(async (manager) => {
      for (const record of records) {
        await manager.query(
          `UPDATE execution_steps SET record = $4::jsonb, items_hash = NULL WHERE execution_id = $1 AND step_id = $2 AND run = $3`,
          [id, record.stepId, record.run, JSON.stringify(record)],
        );
      }
      await manager.query(`DELETE FROM execution_events WHERE execution_id = $1`, [id]);
      for (const block of (compact.events as string).split('\n\n')) {
        const fields = Object.fromEntries(
          block.split('\n').map((line) => [line.slice(0, line.indexOf(': ')), line.slice(line.indexOf(': ') + 2)]),
        );
        if (!fields.event) continue;
        const { executionId: _, ...data } = JSON.parse(fields.data) as Record<string, unknown>;
        await manager.query(`INSERT INTO execution_events (execution_id, seq, type, data) VALUES ($1, $2, $3, $4::jsonb)`, [
          id,
          Number(fields.id),
          fields.event,
          JSON.stringify(data),
        ]);
      }
    });
    assert.deepEqual(await reads(id), compact);
  });
});
