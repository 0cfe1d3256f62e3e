/**
 * What a step run's record tells beyond its result, through the API: the
 * config as the run resolved it with a secret masked (and never the secret),
 * the attempts of a retried call (the engine's with times and errors,
 * Temporal's by number), and the error log line a failed step writes.
 *
 *   start ─▶ call (http, Bearer secret) ─▶ engine (503 twice, jitter policy) ─▶ temporal (503 twice, plain policy)
 *   start ─▶ boom (http, 500)
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: step records carry their resolved config, attempts and failure line', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    res.setHeader('content-type', 'application/json');
    if (path.startsWith('/flaky')) {
      res.statusCode = hits[path] < 3 ? 503 : 200;
      return void res.end(JSON.stringify({ attempt: hits[path] }));
    }
    if (path === '/boom') {
      res.statusCode = 500;
      return void res.end('{}');
    }
    res.end(JSON.stringify({ ok: true }));
  });
  const canary = `records-canary-${randomBytes(12).toString('hex')}`;
  const read = async (path: string) => {
    const res = await org.auth(env.t.request.get(path));
    assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
    assert.equal(res.text.includes(canary), false, `${path} leaks the secret`);
    return res.body as Record<string, unknown>;
  };

  it('records the resolved config (secret masked) and the attempts of retried calls', async () => {
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'RECORDS_TOKEN', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201);
    const retry = { maxAttempts: 3, initialInterval: '50ms', backoffStrategy: 'fixed' };
    await publish(env, org, {
      name: 'Records',
      key: 'records',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: {} },
        call: {
          type: 'module',
          pluginType: 'http-request',
          config: {
            url: `${server.base}/hello?n=\${{ workflow.inputs.n }}`,
            headers: { Authorization: 'Bearer ${{ secrets.RECORDS_TOKEN }}' },
          },
          dependsOn: ['start'],
        },
        engine: {
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.base}/flaky-engine` },
          errorHandling: { retryPolicy: { ...retry, jitter: 0.2 } },
          dependsOn: ['call'],
        },
        temporal: {
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.base}/flaky-temporal` },
          errorHandling: { retryPolicy: retry },
          dependsOn: ['engine'],
        },
      },
    });
    const id = await execute(env, org, 'records', { inputs: { n: 7 } });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));

    const call = (await read(`/workflows/executions/${id}/steps/call`)).record as Record<string, unknown>;
    assert.deepEqual(call.config, { url: `${server.base}/hello?n=7`, headers: { Authorization: 'Bearer <redacted>' } });
    assert.equal(call.attempts, undefined, 'one attempt lists none');

    const engine = (await read(`/workflows/executions/${id}/steps/engine`)).record as { attempts: Array<Record<string, unknown>> };
    assert.deepEqual(
      engine.attempts.map((a) => [a.attempt, a.status, (a.error as { code?: string } | undefined)?.code]),
      [
        [1, 'failed', 'HTTP_5XX'],
        [2, 'failed', 'HTTP_5XX'],
        [3, 'completed', undefined],
      ],
    );
    assert.ok(engine.attempts.every((a) => typeof a.startedAt === 'string' && typeof a.completedAt === 'string'));

    const temporal = (await read(`/workflows/executions/${id}/steps/temporal`)).record as { attempts: Array<Record<string, unknown>> };
    assert.deepEqual(
      temporal.attempts.map((a) => [a.attempt, a.status, 'startedAt' in a]),
      [
        [1, 'failed', false],
        [2, 'failed', false],
        [3, 'completed', true],
      ],
    );
    assert.equal(hits['/flaky-temporal'], 3);
    for (const path of ['/steps', '/state', '/export']) await read(`/workflows/executions/${id}${path}`);
  });

  it('writes an error log line for a failed step', async () => {
    await publish(env, org, {
      name: 'Boom',
      key: 'records-boom',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: {} },
        boom: { type: 'module', pluginType: 'http-request', config: { url: `${server.base}/boom` }, dependsOn: ['start'] },
      },
    });
    const id = await execute(env, org, 'records-boom');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'failed');
    const logs = (await read(`/workflows/executions/${id}/logs?stepId=boom`)).data as Array<Record<string, unknown>>;
    assert.deepEqual(
      logs.map((l) => [l.level, l.message]),
      [['error', 'HTTP_5XX: HTTP 500 Internal Server Error']],
    );
  });
});
