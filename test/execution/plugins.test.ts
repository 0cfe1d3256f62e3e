import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { codeExec } from '../../activities/plugins/code-exec';
import { DEFAULT_EGRESS, type EgressPolicy } from '../../activities/plugins/egress';
import { httpRequest } from '../../activities/plugins/http-request';
import { paginatedFetch } from '../../activities/plugins/paginated-fetch';
import type { PluginContext } from '../../activities/plugins/plugin-context';
import type { ActivityCall } from '../../workflows/engine/runtime/types';

function context(config: Record<string, unknown>, extra: Partial<ActivityCall> = {}, egress: EgressPolicy = DEFAULT_EGRESS) {
  const lines: Array<[string, string]> = [];
  const call: ActivityCall = { executionId: 'exec_1', organizationId: '1', workflowId: 'wf_1', stepId: 's', pluginType: 'x', config, inputs: {}, items: [{}], ...extra };
  const ctx: PluginContext = { call, config, inputs: call.inputs, signal: new AbortController().signal, egress, log: (level, message) => lines.push([level, message]) };
  return { ctx, lines };
}

async function failure(promise: Promise<unknown>): Promise<ApplicationFailure> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApplicationFailure, String(error));
    return error;
  }
  assert.fail('expected a failure');
}

describe('plugin: http-request', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/json') return void res.setHeader('content-type', 'application/json').end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }));
        if (url.pathname === '/redirect') return void res.writeHead(302, { location: '/json' }).end();
        if (url.pathname === '/slow') return void setTimeout(() => res.end('late'), 2000);
        res.statusCode = Number(url.searchParams.get('status') ?? 200);
        res.end('text body');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  it('sends JSON bodies and headers, parses JSON responses', async () => {
    const { ctx } = context({ url: `${base}/json`, method: 'POST', body: { a: 1 }, headers: { Authorization: 'Bearer t' } });
    const result = await httpRequest(ctx);
    assert.equal(result.status, 'success');
    assert.deepEqual((result.outputs as { body: unknown }).body, { method: 'POST', body: '{"a":1}', auth: 'Bearer t' });
    assert.equal((result.outputs as { statusCode: number }).statusCode, 200);
  });

  it('follows redirects unless told not to', async () => {
    const followed = await httpRequest(context({ url: `${base}/redirect` }).ctx);
    assert.equal((followed.outputs as { statusCode: number }).statusCode, 200);
    const kept = await httpRequest(context({ url: `${base}/redirect`, followRedirects: false }).ctx);
    assert.equal((kept.outputs as { statusCode: number }).statusCode, 302);
  });

  it('maps statuses and transport problems to the engine codes, retryable or not', async () => {
    const notFound = await failure(httpRequest(context({ url: `${base}/x?status=404` }).ctx));
    assert.deepEqual([notFound.type, notFound.nonRetryable], ['HTTP_4XX', true]);
    const broken = await failure(httpRequest(context({ url: `${base}/x?status=503` }).ctx));
    assert.deepEqual([broken.type, broken.nonRetryable], ['HTTP_5XX', false]);
    const slow = await failure(httpRequest(context({ url: `${base}/slow`, timeout: '200ms' }).ctx));
    assert.deepEqual([slow.type, slow.nonRetryable], ['HTTP_TIMEOUT', false]);
    const invalid = await failure(httpRequest(context({ url: 'ftp://example.com/file' }).ctx));
    assert.equal(invalid.type, 'HTTP_INVALID_URL');
    const refused = await failure(httpRequest(context({ url: 'http://127.0.0.1:1/' }).ctx));
    assert.equal(refused.type, 'HTTP_NETWORK_ERROR');
  });

  it('enforces the egress policy, also across redirects', async () => {
    const denied = await failure(httpRequest(context({ url: 'http://169.254.169.254/latest/meta-data' }).ctx));
    assert.equal(denied.type, 'HTTP_EGRESS_DENIED');
    const onlyExample = { allow: ['*.example.com'], deny: [] };
    const outside = await failure(httpRequest(context({ url: `${base}/json` }, {}, onlyExample).ctx));
    assert.equal(outside.type, 'HTTP_EGRESS_DENIED');
  });
});

describe('plugin: code-exec', () => {
  it('runs JavaScript with inputs and items, returning an object', async () => {
    const { ctx, lines } = context({ code: 'console.log("sum", inputs.a + inputs.b); return { total: inputs.a + inputs.b, n: $items.length };' });
    ctx.inputs = { a: 2, b: 3 };
    const result = await codeExec(ctx);
    assert.deepEqual(result, { status: 'success', outputs: { total: 5, n: 1 } });
    assert.deepEqual(lines, [['info', 'sum 5']]);
  });

  it('supports top-level await, and maps arrays to items and scalars to {result}', async () => {
    assert.deepEqual((await codeExec(context({ code: 'const v = await Promise.resolve(2); return [{ v }, 3];' }).ctx)).items, [{ v: 2 }, { result: 3 }]);
    assert.deepEqual((await codeExec(context({ code: 'return 42' }).ctx)).outputs, { result: 42 });
    assert.deepEqual((await codeExec(context({ code: 'const x = 1;' }).ctx)).outputs, {});
  });

  it('has no require, process, fetch or timers', async () => {
    const result = await codeExec(context({ code: 'return [typeof require, typeof process, typeof fetch, typeof setTimeout].join(",")' }).ctx);
    assert.deepEqual(result.outputs, { result: 'undefined,undefined,undefined,undefined' });
  });

  it('stops runaway code at the deadline and memory bombs at the limit', async () => {
    const loop = await failure(codeExec(context({ code: 'while (true) {}' }, { timeoutMs: 300 }).ctx));
    assert.deepEqual([loop.type, loop.nonRetryable], ['SANDBOX_TIMEOUT', true]);
    const bomb = await failure(codeExec(context({ code: 'const a = []; while (true) a.push(new Array(1e5).fill(1.5));' }).ctx));
    assert.equal(bomb.type, 'SANDBOX_MEMORY_LIMIT');
  });

  it('reports syntax and runtime errors', async () => {
    assert.equal((await failure(codeExec(context({ code: 'return {' }).ctx))).type, 'SANDBOX_SYNTAX_ERROR');
    const thrown = await failure(codeExec(context({ code: 'throw new TypeError("bad input")' }).ctx));
    assert.deepEqual([thrown.type, thrown.message], ['SANDBOX_ERROR', 'TypeError: bad input']);
  });
});

describe('plugin: paginated-fetch', () => {
  let server: http.Server;
  let base: string;
  const all = [1, 2, 3, 4, 5].map((id) => ({ id }));
  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const limit = Number(url.searchParams.get('limit'));
      res.setHeader('content-type', 'application/json');
      if (url.pathname === '/pages') {
        const page = Number(url.searchParams.get('page'));
        const data = all.slice((page - 1) * limit, page * limit);
        return void res.end(JSON.stringify({ data, hasMore: page * limit < all.length }));
      }
      const start = Number(url.searchParams.get('cursor') ?? 0);
      const data = all.slice(start, start + limit);
      res.end(JSON.stringify({ results: data, next: start + limit < all.length ? String(start + limit) : null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('accumulates every page into done', async () => {
    const result = await paginatedFetch(context({ url: `${base}/pages`, limit: 2 }).ctx);
    assert.deepEqual(result.items, all);
    assert.deepEqual(result.activePorts, ['done']);
    assert.deepEqual(result.outputs, { items: all, totalFetched: 5, pages: 3 });
  });

  it('streams one page per call to loop, carrying its position, then an empty done', async () => {
    const seen: unknown[] = [];
    let nodeState: Record<string, unknown> | undefined;
    for (let call = 0; call < 10; call++) {
      const { ctx } = context({ url: `${base}/cursor`, limit: 2, mode: 'stream', paginationStrategy: 'cursor', dataPath: 'results', cursorResponsePath: 'next' }, { nodeState });
      const result = await paginatedFetch(ctx);
      if (result.activePorts?.[0] === 'done') {
        assert.deepEqual(result.items, []);
        break;
      }
      assert.deepEqual(result.activePorts, ['loop']);
      seen.push(...(result.items ?? []));
      nodeState = result.nodeState ?? undefined;
    }
    assert.deepEqual(seen, all);
  });
});

