/**
 * The example plugin with per-step state, loaded the way PLUGINS loads it and
 * run the way the worker runs it (egress policy included) against a local
 * feed, its state handed from one call to the next as the engine hands it.
 * (A loop over it on Temporal through the HTTP API: test/executions-api/operator-plugin-kinds.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_EGRESS } from '../../../activities/egress/policy';
import { loadOperatorPlugins, type OperatorPlugins } from '../../../activities/plugins/operator/load-plugins';
import { operatorPluginRun } from '../../../activities/plugins/operator/run-operator-plugin';
import type { PluginResult } from '../../../workflows/engine';
import { failure, pluginContext } from '../../../test/support/plugin-calls';

/** Five changes, c1…c5; a page is the entries after `after`, `limit` of them. */
const CHANGES = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => ({ id }));

describe('examples/plugins/change-feed (per-step state)', () => {
  let plugins: OperatorPlugins;
  let server: Server;
  let baseUrl: string;
  const asked: string[] = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/change-feed'], path.resolve(__dirname, '../../..'));
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://feed');
      asked.push(url.search);
      if (url.pathname === '/down') return void ((res.statusCode = 503), res.end('down'));
      const after = url.searchParams.get('after');
      const start = after === null ? 0 : CHANGES.findIndex((change) => change.id === after) + 1;
      const entries = CHANGES.slice(start, start + Number(url.searchParams.get('limit')));
      res.end(JSON.stringify({ entries, ...(entries.length > 0 ? { next: entries.at(-1)!.id } : {}) }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (config: Record<string, unknown>, nodeState?: Record<string, unknown>, egress = pluginContext({}).ctx.egress) => {
    const { ctx } = pluginContext(config, { pluginType: 'change-feed', pluginVersion: '1.0.0', nodeState }, egress);
    return operatorPluginRun(plugins, ctx.call)!(ctx);
  };

  it('loads with state, once per activation', () => {
    const descriptor = plugins.catalog['change-feed'];
    assert.equal(descriptor.nodeState, true);
    assert.equal(descriptor.executeMode, 'all');
  });

  it('reads page after page from the cursor its previous call left, and asks again from it when nothing is new', async () => {
    const config = { url: `${baseUrl}/changes`, limit: 2 };
    let state: Record<string, unknown> | undefined;
    const pages: PluginResult[] = [];
    for (let i = 0; i < 4; i += 1) {
      const result = await call(config, state);
      pages.push(result);
      state = result.nodeState ?? undefined;
    }
    assert.deepEqual(
      pages.map((page) => page.outputs),
      [
        { entries: [{ id: 'c1' }, { id: 'c2' }], count: 2, cursor: 'c2', pages: 1 },
        { entries: [{ id: 'c3' }, { id: 'c4' }], count: 2, cursor: 'c4', pages: 2 },
        { entries: [{ id: 'c5' }], count: 1, cursor: 'c5', pages: 3 },
        { entries: [], count: 0, cursor: 'c5', pages: 4 },
      ],
    );
    assert.deepEqual(state, { cursor: 'c5', pages: 4 });
    assert.deepEqual(asked.slice(-4), ['?limit=2', '?after=c2&limit=2', '?after=c4&limit=2', '?after=c5&limit=2']);
  });

  it('starts after `after` when it has no state yet', async () => {
    const result = await call({ url: `${baseUrl}/changes`, after: 'c3' });
    assert.deepEqual(result.outputs, { entries: [{ id: 'c4' }, { id: 'c5' }], count: 2, cursor: 'c5', pages: 1 });
  });

  it('fails FEED_UNAVAILABLE (retried) on a 5xx, and is held to the egress policy', async () => {
    const down = await failure(call({ url: `${baseUrl}/down` }));
    assert.equal(down.type, 'FEED_UNAVAILABLE');
    assert.equal(down.nonRetryable, false);
    const denied = await failure(call({ url: `${baseUrl}/changes` }, undefined, DEFAULT_EGRESS));
    assert.equal(denied.type, 'PLUGIN_EGRESS_DENIED');
  });
});
