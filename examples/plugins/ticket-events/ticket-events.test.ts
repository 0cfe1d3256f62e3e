/**
 * The example trigger plugin, loaded the way PLUGINS loads it, its activate
 * and deactivate run the way the worker runs them (egress policy included)
 * against a local ticket system. (Activated and deactivated on an alias, and
 * started by the ticket system's events, on Temporal through the HTTP API:
 * test/executions-api/operator-plugin-kinds.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_EGRESS } from '../../../activities/egress/policy';
import { loadOperatorPlugins, type OperatorPlugins } from '../../../activities/plugins/operator/load-plugins';
import { runTriggerPlugin } from '../../../activities/plugins/operator/run-trigger-plugin';
import type { TriggerLifecycleRequest } from '../../../workflows/engine';
import { TEST_EGRESS } from '../../../test/support/egress';
import { failure } from '../../../test/support/plugin-calls';

describe('examples/plugins/ticket-events (a trigger)', () => {
  let plugins: OperatorPlugins;
  let server: Server;
  let baseUrl: string;
  const received: Array<{ method: string; url: string; authorization?: string; body: unknown }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/ticket-events'], path.resolve(__dirname, '../../..'));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push({
          method: req.method ?? '',
          url: req.url ?? '',
          authorization: req.headers.authorization,
          body: text && JSON.parse(text),
        });
        if (req.url?.startsWith('/locked')) return void ((res.statusCode = 403), res.end('no'));
        res.setHeader('content-type', 'application/json');
        res.end(req.method === 'POST' ? JSON.stringify({ id: 'sub-7' }) : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const request = (phase: 'activate' | 'deactivate', state?: Record<string, unknown>): TriggerLifecycleRequest => ({
    phase,
    organizationId: '1',
    workflowId: 'wf_1',
    aliasName: 'live',
    revision: 3,
    triggerId: 'events',
    pluginType: 'ticket-events',
    startUrl: 'https://api.example/workflows/webhooks/t0k3n',
    ...(state ? { state } : {}),
  });
  const run = (
    phase: 'activate' | 'deactivate',
    config: Record<string, unknown>,
    state?: Record<string, unknown>,
    egress = TEST_EGRESS,
  ) => {
    const lines: Array<[string, string]> = [];
    const result = runTriggerPlugin({
      plugin: plugins.byName.get('ticket-events')!,
      request: request(phase, state),
      config,
      secrets: {},
      egress,
      signal: new AbortController().signal,
      log: (level, message) => lines.push([level, message]),
    });
    return { result, lines };
  };
  const config = () => ({ apiUrl: `${baseUrl}/api/`, token: 'tk', events: ['issue.transitioned'], project: 'OPS' });

  it('loads as a trigger, with activate and deactivate', () => {
    const plugin = plugins.byName.get('ticket-events')!;
    assert.equal(plugin.descriptor.kind, 'trigger');
    assert.deepEqual(plugin.descriptor.inputPorts, []);
    assert.equal(typeof plugin.trigger?.activate, 'function');
    assert.equal(typeof plugin.trigger?.deactivate, 'function');
    assert.equal(plugin.execute, undefined);
  });

  it('activate subscribes the start URL and keeps the subscription; deactivate deletes it', async () => {
    const activated = run('activate', config());
    assert.deepEqual(await activated.result, { state: { subscriptionId: 'sub-7' } });
    assert.deepEqual(received.at(-1), {
      method: 'POST',
      url: '/api/subscriptions',
      authorization: 'Bearer tk',
      body: { url: 'https://api.example/workflows/webhooks/t0k3n', events: ['issue.transitioned'], project: 'OPS' },
    });
    assert.deepEqual(activated.lines, [['info', 'subscribed sub-7 to issue.transitioned']]);
    const deactivated = run('deactivate', config(), { subscriptionId: 'sub-7' });
    assert.deepEqual(await deactivated.result, {});
    assert.deepEqual([received.at(-1)?.method, received.at(-1)?.url], ['DELETE', '/api/subscriptions/sub-7']);
  });

  it('refuses the activation TICKETS_REJECTED (not retried) when the ticket system does', async () => {
    const refused = await failure(run('activate', { ...config(), apiUrl: `${baseUrl}/locked` }).result);
    assert.equal(refused.type, 'TICKETS_REJECTED');
    assert.equal(refused.nonRetryable, true);
    assert.match(refused.message, /answered 403 to POST/);
  });

  it('is held to the egress policy: loopback is closed by default', async () => {
    const before = received.length;
    const denied = await failure(run('activate', config(), undefined, DEFAULT_EGRESS).result);
    assert.equal(denied.type, 'PLUGIN_EGRESS_DENIED');
    assert.equal(received.length, before);
  });
});
