/**
 * Config keys of the effectful plugins that the plugin tests do not name
 * (issue 18 §1; mapped in test/engine/accepted-keys.ts): each request the
 * plugin makes shows the key's effect.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { paginatedFetch } from '../../activities/plugins/paginated-fetch';
import { pluginContext } from '../support/plugin-calls';

interface Seen {
  method: string;
  url: URL;
  header: string | undefined;
}

describe('plugin config keys: paginated-fetch', () => {
  let server: http.Server;
  let base: string;
  const seen: Seen[] = [];
  const all = Array.from({ length: 7 }, (_, index) => ({ id: index + 1 }));
  before(async () => {
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push({ method: req.method ?? '', url, header: req.headers['x-team'] as string | undefined });
      res.setHeader('content-type', 'application/json');
      const size = Number(url.searchParams.get('size') ?? url.searchParams.get('limit') ?? 2);
      if (url.pathname === '/offset') {
        const skip = Number(url.searchParams.get('skip'));
        return void res.end(JSON.stringify({ result: { rows: all.slice(skip, skip + size) }, meta: { total: all.length } }));
      }
      if (url.pathname === '/more') {
        const page = Number(url.searchParams.get('page'));
        return void res.end(
          JSON.stringify({ data: all.slice((page - 1) * size, page * size), paging: { next: page * size < all.length } }),
        );
      }
      if (url.pathname === '/short') {
        // Pages shorter than the limit, and no "hasMore": only stopWhenShortPage decides when to stop.
        const page = Number(url.searchParams.get('page'));
        return void res.end(JSON.stringify({ data: page <= 3 ? [{ page }] : [] }));
      }
      const after = Number(url.searchParams.get('after') ?? 0);
      const data = all.slice(after, after + size);
      res.end(JSON.stringify({ data, next: after + size < all.length ? String(after + size) : null }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    seen.length = 0;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  it('pages by offset with renamed pageParam and limitParam, reads dataPath and stops at totalPath, sending method and headers', async () => {
    const result = await paginatedFetch(
      pluginContext({
        url: `${base}/offset`,
        method: 'POST',
        headers: { 'X-Team': 'payments' },
        paginationStrategy: 'offset',
        pageParam: 'skip',
        limitParam: 'size',
        limit: 3,
        dataPath: 'result.rows',
        totalPath: 'meta.total',
      }).ctx,
    );
    assert.deepEqual(result.items, all);
    assert.deepEqual(
      seen.map((request) => [request.method, request.header, request.url.search]),
      [
        ['POST', 'payments', '?size=3&skip=0'],
        ['POST', 'payments', '?size=3&skip=3'],
        ['POST', 'payments', '?size=3&skip=6'],
      ],
    );
  });

  it('stops where hasMorePath says, or after maxPages', async () => {
    const more = await paginatedFetch(pluginContext({ url: `${base}/more`, limit: 3, hasMorePath: 'paging.next' }).ctx);
    assert.deepEqual(more.items, all);
    assert.equal(seen.length, 3);
    const capped = await paginatedFetch(pluginContext({ url: `${base}/more`, limit: 2, hasMorePath: 'paging.next', maxPages: 2 }).ctx);
    assert.deepEqual(capped.outputs, { items: all.slice(0, 4), totalFetched: 4, pages: 2 });
  });

  it('stopWhenShortPage: a short page ends the fetch unless it is false', async () => {
    const stopped = await paginatedFetch(pluginContext({ url: `${base}/short`, limit: 5 }).ctx);
    assert.equal((stopped.outputs as { pages: number }).pages, 1);
    const kept = await paginatedFetch(pluginContext({ url: `${base}/short`, limit: 5, stopWhenShortPage: false }).ctx);
    assert.deepEqual(kept.items, [{ page: 1 }, { page: 2 }, { page: 3 }]);
  });

  it('sends the cursor under cursorRequestParam', async () => {
    const result = await paginatedFetch(
      pluginContext({
        url: `${base}/cursor`,
        limit: 3,
        paginationStrategy: 'cursor',
        cursorResponsePath: 'next',
        cursorRequestParam: 'after',
      }).ctx,
    );
    assert.deepEqual(result.items, all);
    assert.deepEqual(
      seen.map((request) => request.url.searchParams.get('after')),
      [null, '3', '6'],
    );
  });
});
