import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { codeExec } from '../../activities/plugins/code-exec';
import { httpRequest } from '../../activities/plugins/http-request';
import { paginatedFetch } from '../../activities/plugins/paginated-fetch';
import { failure, pluginContext } from '../support/plugin-calls';

const context = pluginContext;

describe('plugin: http-request', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        if (url.pathname === '/json')
          return void res
            .setHeader('content-type', 'application/json')
            .end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization ?? null }));
        if (url.pathname === '/redirect') return void res.writeHead(302, { location: '/json' }).end();
        if (url.pathname === '/slow') return void setTimeout(() => res.end('late'), 2000);
        if (url.pathname === '/huge') {
          // 6 MiB, chunked (no content-length): only reading it as a stream can stop at the cap.
          const chunk = 'x'.repeat(64 * 1024);
          let sent = 0;
          const more = () => {
            while (sent < 96) {
              sent += 1;
              if (!res.write(chunk)) return void res.once('drain', more);
            }
            res.end();
          };
          return more();
        }
        if (url.pathname === '/declared') return void res.writeHead(200, { 'content-length': String(6 * 1024 * 1024) }).end();
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

  it('refuses a response body over 5 MiB, streamed or declared, as HTTP_RESPONSE_TOO_LARGE', async () => {
    for (const path of ['/huge', '/declared']) {
      const tooLarge = await failure(httpRequest(context({ url: `${base}${path}` }).ctx));
      assert.deepEqual([tooLarge.type, tooLarge.nonRetryable], ['HTTP_RESPONSE_TOO_LARGE', true], path);
    }
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
    const { ctx, lines } = context({
      code: 'console.log("sum", inputs.a + inputs.b); return { total: inputs.a + inputs.b, n: $items.length };',
    });
    ctx.inputs = { a: 2, b: 3 };
    const result = await codeExec(ctx);
    assert.deepEqual(result, { status: 'success', outputs: { total: 5, n: 1 } });
    assert.deepEqual(lines, [['info', 'sum 5']]);
  });

  it('supports top-level await; an array or a scalar becomes {result}, nothing {} (as the compatible engine documents)', async () => {
    // `returns: output` is what the validator writes into every code-exec step published without `returns`.
    const array = await codeExec(context({ code: 'const v = await Promise.resolve(2); return [{ v }, 3];', returns: 'output' }).ctx);
    assert.deepEqual(array, { status: 'success', outputs: { result: [{ v: 2 }, 3] } });
    assert.deepEqual((await codeExec(context({ code: 'return 42' }).ctx)).outputs, { result: 42 });
    assert.deepEqual((await codeExec(context({ code: 'return "hi"' }).ctx)).outputs, { result: 'hi' });
    assert.deepEqual((await codeExec(context({ code: 'return { items: [1, 2] }' }).ctx)).outputs, { items: [1, 2] });
    assert.deepEqual((await codeExec(context({ code: 'const x = 1;' }).ctx)).outputs, {});
    assert.deepEqual((await codeExec(context({ code: 'return null' }).ctx)).outputs, {});
  });

  it('keeps a revision published before returns existed (no returns key) as it ran then: a returned array is items', async () => {
    const legacy = await codeExec(context({ code: 'return [{ v: 1 }, 3];' }).ctx);
    assert.deepEqual(legacy, { status: 'success', items: [{ v: 1 }, { result: 3 }] });
    assert.deepEqual((await codeExec(context({ code: 'return 42' }).ctx)).outputs, { result: 42 });
  });

  it('returns: items makes each element of the returned array an item; any other value fails the step', async () => {
    const items = await codeExec(context({ code: 'return [{ v: 1 }, 3];', returns: 'items' }).ctx);
    assert.deepEqual(items, { status: 'success', items: [{ v: 1 }, { result: 3 }] });
    assert.deepEqual((await codeExec(context({ code: 'return [];', returns: 'items' }).ctx)).items, []);
    const refused = await failure(codeExec(context({ code: 'return { v: 1 };', returns: 'items' }).ctx));
    assert.equal(refused.type, 'PLUGIN_RESULT_INVALID');
    assert.equal(refused.nonRetryable, true);
    assert.match(refused.message, /must return an array \(it returned object\)/);
  });

  it('has no require, process, fetch or timers', async () => {
    const result = await codeExec(
      context({ code: 'return [typeof require, typeof process, typeof fetch, typeof setTimeout].join(",")' }).ctx,
    );
    assert.deepEqual(result.outputs, { result: 'undefined,undefined,undefined,undefined' });
  });

  it('stops runaway code at the deadline and memory bombs at the limit', async function () {
    this.timeout(90_000);
    const loop = await failure(codeExec(context({ code: 'while (true) {}' }, { timeoutMs: 300 }).ctx));
    assert.deepEqual([loop.type, loop.nonRetryable], ['SANDBOX_TIMEOUT', true]);
    // The longest timeout a step may have: on a loaded machine filling the memory took longer than the 10 s default,
    // and the deadline came first (this is about the memory limit).
    const bomb = await failure(
      codeExec(context({ code: 'const a = []; while (true) a.push(new Array(1e5).fill(1.5));' }, { timeoutMs: 60_000 }).ctx),
    );
    assert.equal(bomb.type, 'SANDBOX_MEMORY_LIMIT');
  });

  it('reports syntax and runtime errors', async () => {
    assert.equal((await failure(codeExec(context({ code: 'return {' }).ctx))).type, 'SANDBOX_SYNTAX_ERROR');
    const thrown = await failure(codeExec(context({ code: 'throw new TypeError("bad input")' }).ctx));
    assert.deepEqual([thrown.type, thrown.message], ['SANDBOX_ERROR', 'TypeError: bad input']);
  });

  describe('fetch with network.allowedHosts', () => {
    let server: http.Server;
    let base: string;
    let port: number;
    const hits: Record<string, number> = {};
    const closedEarly: string[] = [];
    const BIG = 6 * 1024 * 1024;
    before(async () => {
      server = http.createServer((req, res) => {
        const path = new URL(req.url ?? '/', 'http://x').pathname;
        hits[path] = (hits[path] ?? 0) + 1;
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          if (path === '/json')
            return void res
              .setHeader('content-type', 'application/json')
              .setHeader('x-echo', 'yes')
              .end(
                JSON.stringify({
                  method: req.method,
                  body,
                  type: req.headers['content-type'] ?? null,
                  token: req.headers['x-token'] ?? null,
                }),
              );
          if (path === '/text') return void res.setHeader('content-type', 'text/plain').end('plain text');
          if (path === '/redirect-out') return void res.writeHead(302, { location: `http://localhost:${port}/text` }).end();
          if (path === '/hang') return void res.on('close', () => closedEarly.push(path));
          if (path === '/big') {
            res.setHeader('content-type', 'text/plain');
            const chunk = Buffer.alloc(64 * 1024, 'x');
            for (let sent = 0; sent < BIG; sent += chunk.length) res.write(chunk);
            return void res.end();
          }
          if (path === '/big-declared') return void res.setHeader('content-length', String(BIG)).end(Buffer.alloc(BIG, 'y'));
          res.statusCode = 404;
          res.end('missing');
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
      base = `http://127.0.0.1:${port}`;
    });
    beforeEach(() => {
      for (const key of Object.keys(hits)) delete hits[key];
      closedEarly.length = 0;
    });
    after(() => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    });

    const allowLocal = { allowedHosts: ['127.0.0.1'] };
    const run = (
      code: string,
      network: unknown = allowLocal,
      extra: Parameters<typeof context>[1] = {},
      egress?: Parameters<typeof context>[2],
    ) => codeExec(context({ code: `const base = ${JSON.stringify(base)};\n${code}`, network, returns: 'output' }, extra, egress).ctx);

    it('fetches JSON and text from an allowed host, and disposes cleanly', async () => {
      const result = await run(`
        const a = await fetch(base + '/json');
        const b = await fetch(base + '/text');
        const missing = await fetch(base + '/nope');
        return { json: await a.json(), ok: a.ok, status: a.status, url: a.url, type: a.headers['content-type'], echo: a.headers['x-echo'],
                 text: await b.text(), again: await b.text(), missing: [missing.ok, missing.status, missing.statusText, await missing.text()] };`);
      assert.deepEqual(result.outputs, {
        json: { method: 'GET', body: '', type: null, token: null },
        ok: true,
        status: 200,
        url: `${base}/json`,
        type: 'application/json',
        echo: 'yes',
        text: 'plain text',
        again: 'plain text',
        missing: [false, 404, 'Not Found', 'missing'],
      });
    });

    it('POSTs a JSON-encoded object body with headers; a string body is sent as is', async () => {
      const result = await run(`
        const r = await fetch(base + '/json', { method: 'post', headers: { 'X-Token': 't1' }, body: { a: 1 } });
        const s = await fetch(base + '/json', { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'raw' });
        return { posted: await r.json(), put: await s.json() };`);
      assert.deepEqual(result.outputs, {
        posted: { method: 'POST', body: '{"a":1}', type: 'application/json', token: 't1' },
        put: { method: 'PUT', body: 'raw', type: 'text/plain', token: null },
      });
    });

    it('refuses a host outside network.allowedHosts without a request, as a rejection the code can catch', async () => {
      const result = await run(`
        try { await fetch(base.replace('127.0.0.1', 'localhost') + '/json'); return { fetched: true }; }
        catch (error) { return { name: error.name, message: error.message }; }`);
      assert.deepEqual(result.outputs, { name: 'Error', message: 'fetch: host localhost is not in network.allowedHosts' });
      assert.equal(hits['/json'], undefined, 'no request reached the server');

      const uncaught = await failure(run(`await fetch(base + '/json');`, { allowedHosts: ['*.example.com'] }));
      assert.deepEqual([uncaught.type, uncaught.message], ['SANDBOX_ERROR', 'Error: fetch: host 127.0.0.1 is not in network.allowedHosts']);
      const redirected = await failure(run(`await fetch(base + '/redirect-out');`));
      assert.equal(redirected.message, 'Error: fetch: host localhost is not in network.allowedHosts', 'every redirect hop is checked');
      const notHttp = await failure(run(`await fetch('file:///etc/passwd');`, { allowedHosts: ['*'] }));
      assert.match(notHttp.message, /^TypeError: fetch: only http and https URLs/);
      assert.deepEqual(hits, { '/redirect-out': 1 });
    });

    it('lets the egress deny list win over network.allowedHosts', async () => {
      const denyLocal = { allow: ['*'], deny: ['127.0.0.1'] };
      const denied = await failure(run(`await fetch(base + '/json');`, allowLocal, {}, denyLocal));
      assert.deepEqual(
        [denied.type, denied.message],
        ['SANDBOX_ERROR', 'Error: fetch: egress to 127.0.0.1 is not allowed (EGRESS_ALLOW_HOSTS / EGRESS_DENY_HOSTS)'],
      );
      const metadata = await failure(run(`await fetch('http://169.254.169.254/latest/meta-data/');`, { allowedHosts: ['*'] }));
      assert.equal(metadata.message, 'Error: fetch: egress to 169.254.169.254 is not allowed (EGRESS_ALLOW_HOSTS / EGRESS_DENY_HOSTS)');
      assert.deepEqual(hits, {});
    });

    it('accepts the * pattern, and rejects with a TypeError when the host is unreachable', async () => {
      const result = await run(`return { text: await (await fetch(base + '/text')).text() };`, { allowedHosts: ['*'] });
      assert.deepEqual(result.outputs, { text: 'plain text' });
      const closed = http.createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      const unreachable = await failure(run(`await fetch('http://127.0.0.1:${closedPort}/');`, { allowedHosts: ['*'] }));
      assert.match(unreachable.message, /^TypeError: fetch: the request to 127\.0\.0\.1 failed: .*ECONNREFUSED/);
    });

    it('fails with SANDBOX_TIMEOUT at the deadline while a request hangs, aborts it, and disposes cleanly', async () => {
      const started = Date.now();
      const timedOut = await failure(
        run(`try { await fetch(base + '/hang'); } catch (error) { return { caught: error.message }; }`, allowLocal, { timeoutMs: 500 }),
      );
      const elapsed = Date.now() - started;
      assert.deepEqual([timedOut.type, timedOut.nonRetryable], ['SANDBOX_TIMEOUT', true]);
      assert.ok(elapsed >= 450 && elapsed < 1500, `failed after ${elapsed} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(closedEarly, ['/hang'], 'the hanging request was aborted');
    });

    it('aborts an outstanding request when the activity is cancelled', async () => {
      const { ctx } = context({ code: `await fetch(${JSON.stringify(base)} + '/hang');`, network: allowLocal });
      const controller = new AbortController();
      ctx.signal = controller.signal;
      setTimeout(() => controller.abort(), 200);
      const started = Date.now();
      const cancelled = await failure(codeExec(ctx));
      assert.equal(cancelled.type, 'SANDBOX_CANCELLED');
      assert.ok(Date.now() - started < 1500);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(closedEarly, ['/hang']);
    });

    it('rejects a response body over 5 MiB, streamed or declared', async () => {
      const result = await run(`
        const out = [];
        for (const path of ['/big', '/big-declared']) {
          try { await (await fetch(base + path)).text(); out.push('read'); } catch (error) { out.push(error.message); }
        }
        return out;`);
      assert.deepEqual(result.outputs, {
        result: ['fetch: response body over 5242880 bytes', 'fetch: response body over 5242880 bytes'],
      });
    });

    it('caps the number of fetch calls per run at 50', async () => {
      const result = await run(`
        let done = 0;
        try { for (let i = 0; i < 60; i++) { await fetch(base + '/text'); done++; } } catch (error) { return { done, message: error.message }; }
        return { done };`);
      assert.deepEqual(result.outputs, { done: 50, message: 'fetch: more than 50 calls in one run' });
      assert.equal(hits['/text'], 50);
    });

    it('runs requests concurrently, and returns without waiting for ones the code does not await', async () => {
      const result = await run(`
        const texts = await Promise.all([1, 2, 3].map(() => fetch(base + '/text').then((r) => r.text())));
        fetch(base + '/hang');
        return { texts };`);
      assert.deepEqual(result.outputs, { texts: ['plain text', 'plain text', 'plain text'] });
    });

    it('has no fetch without network.allowedHosts, and still reports a deadlock', async () => {
      for (const network of [null, {}, { allowedHosts: [] }]) {
        assert.deepEqual((await run('return typeof fetch', network)).outputs, { result: 'undefined' });
      }
      assert.equal((await failure(run('await new Promise(() => {});', null))).type, 'SANDBOX_DEADLOCK');
      assert.equal(
        (await failure(run('await (await fetch(base + "/text")).text(); await new Promise(() => {});'))).type,
        'SANDBOX_DEADLOCK',
      );
      assert.equal((await failure(run('fetch(base + "/text")', { allowedHosts: 'x' }))).type, 'PLUGIN_CONFIG_INVALID');
    });
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

  it('accumulates every page into done and default', async () => {
    const result = await paginatedFetch(context({ url: `${base}/pages`, limit: 2 }).ctx);
    assert.deepEqual(result.items, all);
    assert.deepEqual(result.activePorts, ['done', 'default']);
    assert.deepEqual(result.outputs, { items: all, totalFetched: 5, pages: 3 });
  });

  it('streams one page per call to loop, carrying its position, then an empty done', async () => {
    const seen: unknown[] = [];
    let nodeState: Record<string, unknown> | undefined;
    for (let call = 0; call < 10; call++) {
      const { ctx } = context(
        { url: `${base}/cursor`, limit: 2, mode: 'stream', paginationStrategy: 'cursor', dataPath: 'results', cursorResponsePath: 'next' },
        { nodeState },
      );
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
