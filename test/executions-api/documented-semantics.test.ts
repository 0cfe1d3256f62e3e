/**
 * Documented semantics that used to differ silently (issue 18 §2), through
 * HTTP, PostgreSQL, Temporal and the real activities: paginated-fetch in
 * accumulate mode feeds a plain `default` edge, a sequential forEach with
 * continueOnError ends failed and says how often, and webhook-wait's
 * `urlPrefix` is a readable path segment of the API's own callback URL.
 */
import assert from 'node:assert/strict';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: documented semantics', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let base: string;
  const all = [1, 2, 3].map((id) => ({ id }));

  before(async () => {
    // A paged API (?page=N&limit=M → {data, hasMore}); /fail/* answers 500.
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      res.setHeader('content-type', 'application/json');
      if (url.pathname.startsWith('/fail')) {
        res.statusCode = 500;
        return void res.end('{}');
      }
      const limit = Number(url.searchParams.get('limit') ?? 50);
      const page = Number(url.searchParams.get('page') ?? 1);
      res.end(JSON.stringify({ data: all.slice((page - 1) * limit, page * limit), hasMore: page * limit < all.length }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  it('paginated-fetch in accumulate mode feeds a plain default edge', async () => {
    //   start ─▶ pages ─default─▶ count
    await publish(env, org, {
      name: 'pages-default',
      key: 'pages-default',
      steps: [
        trigger(),
        { id: 'pages', type: 'module', pluginType: 'paginated-fetch', config: { url: `${base}/items`, limit: 2 }, dependsOn: ['start'] },
        {
          id: 'count',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'count', value: '${{ len($items) }}' },
          dependsOn: ['pages'],
        },
      ],
      variables: { count: { initialValue: 0 } },
      outputs: { count: '${{ variables.count }}', status: '${{ steps.count.status }}' },
    });
    const done = await waitFor(env, org, await execute(env, org, 'pages-default'), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { count: 3, status: 'completed' });
  });

  it('a sequential forEach with continueOnError ends failed, with failed: n, and goes on through the failed edge', async () => {
    //   start ─▶ calls (forEach, continueOnError) ─(failed)─▶ report
    await publish(env, org, {
      name: 'foreach-failed',
      key: 'foreach-failed',
      variables: { paths: { initialValue: ['items', 'fail/1', 'items'] } },
      steps: [
        trigger(),
        {
          id: 'calls',
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${base}/\${{ variables.path }}` },
          forEach: { expression: 'variables.paths', itemVariable: 'path' },
          errorHandling: { continueOnError: true },
          dependsOn: ['start'],
        },
        { id: 'report', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['calls'] },
      ],
      outputs: {
        status: '${{ steps.calls.status }}',
        failed: '${{ steps.calls.outputs.failed }}',
        count: '${{ steps.calls.outputs.count }}',
        code: '${{ steps.calls.error.code }}',
      },
    });
    const id = await execute(env, org, 'foreach-failed');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { status: 'failed', failed: 1, count: 3, code: 'HTTP_5XX' });
    const step = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/calls`)).expect(200);
    assert.equal(step.body.record.status, 'failed', JSON.stringify(step.body));
    assert.equal(step.body.record.outputs.failed, 1, JSON.stringify(step.body));
  });

  it('webhook-wait urlPrefix is a readable segment of the callback URL, which still works', async () => {
    await publish(env, org, {
      name: 'prefixed-callback',
      key: 'prefixed-callback',
      steps: [
        trigger(),
        {
          id: 'callback',
          type: 'module',
          pluginType: 'webhook-wait',
          config: { timeout: '1h', urlPrefix: 'approvals' },
          dependsOn: ['start'],
        },
      ],
      outputs: { status: '${{ steps.callback.outputs.body.status }}', via: '${{ steps.callback.outputs.waitUrl }}' },
    });
    const id = await execute(env, org, 'prefixed-callback');
    let callbackUrl: string | undefined;
    for (let i = 0; i < 200 && callbackUrl === undefined; i++) {
      const pending = await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`));
      callbackUrl = (pending.body.data as Array<{ callbackUrl?: string }> | undefined)?.[0]?.callbackUrl;
      if (callbackUrl === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.match(String(callbackUrl), new RegExp(`^http://api\\.test/workflows/webhooks/callback/approvals/${id}/[0-9a-f]{64}$`));
    const delivered = await env.t.request.post(new URL(String(callbackUrl)).pathname).send({ status: 'approved' });
    assert.equal(delivered.status, 202, JSON.stringify(delivered.body));
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { status: 'approved', via: callbackUrl });
  });

  it('refuses a urlPrefix that is a URL rather than a path segment, at publish', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: 'bad-prefix',
      key: 'bad-prefix',
      steps: [
        trigger(),
        {
          id: 'callback',
          type: 'module',
          pluginType: 'webhook-wait',
          config: { urlPrefix: 'https://evil.example/hooks' },
          dependsOn: ['start'],
        },
      ],
    });
    assert.ok(res.status >= 400 && res.status < 500, JSON.stringify(res.body));
    assert.match(JSON.stringify(res.body.errors), /urlPrefix.*path segment/);
  });
});
