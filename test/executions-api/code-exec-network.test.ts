/**
 * code-exec with `network.allowedHosts`, end to end: the sandbox's fetch
 * reaches a local server that the step allows (GET and a JSON POST), a host
 * the step does not list is refused without a request (caught by the code in
 * one workflow, failing the execution in another).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: code-exec with network.allowedHosts', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: http.Server;
  let base: string;
  const requests: string[] = [];
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        requests.push(`${req.method} ${req.url}`);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, path: req.url, body: body === '' ? null : (JSON.parse(body) as unknown) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('fetches from an allowed host and refuses one that is not listed', async () => {
    const code = `
      const got = await (await fetch('${base}/items?n=' + inputs.n)).json();
      const posted = await (await fetch('${base}/orders', { method: 'POST', body: { qty: inputs.n } })).json();
      let refused = null;
      try { await fetch('${base.replace('127.0.0.1', 'localhost')}/secret'); } catch (error) { refused = error.message; }
      return { got, posted, refused };`;
    await publish(env, org, {
      name: 'Fetching code',
      key: 'fetching-code',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: { inputs: { n: { type: 'integer', required: true } } } },
        call: {
          type: 'module',
          pluginType: 'code-exec',
          inputs: { n: '${{ trigger.payload.n }}' },
          config: { code, network: { allowedHosts: ['127.0.0.1'] } },
        },
      },
      connections: [{ from: 'start', to: 'call' }],
      outputs: {
        got: '${{ steps.call.outputs.got }}',
        posted: '${{ steps.call.outputs.posted }}',
        refused: '${{ steps.call.outputs.refused }}',
      },
    });
    const done = await waitFor(env, org, await execute(env, org, 'fetching-code', { inputs: { n: 3 } }), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, {
      got: { method: 'GET', path: '/items?n=3', body: null },
      posted: { method: 'POST', path: '/orders', body: { qty: 3 } },
      refused: 'fetch: host localhost is not in network.allowedHosts',
    });
    assert.deepEqual(requests, ['GET /items?n=3', 'POST /orders'], 'the refused host got no request');
  });

  it('fails the execution when the code does not catch a refused fetch', async () => {
    requests.length = 0;
    await publish(env, org, {
      name: 'Refused fetch',
      key: 'refused-fetch',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        call: {
          type: 'module',
          pluginType: 'code-exec',
          config: { code: `return await (await fetch('${base}/x')).json();`, network: { allowedHosts: ['*.example.com'] } },
        },
      },
      connections: [{ from: 'start', to: 'call' }],
    });
    const done = await waitFor(env, org, await execute(env, org, 'refused-fetch'), finished);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.deepEqual(done.error, {
      type: 'SANDBOX_ERROR',
      message: 'Error: fetch: host 127.0.0.1 is not in network.allowedHosts',
      stepId: 'call',
    });
    assert.deepEqual(requests, []);
  });
});
