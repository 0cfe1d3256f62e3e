/**
 * The example plugin, loaded the way PLUGINS loads it and run the way the
 * worker runs it (egress policy included), against a local chat webhook.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_EGRESS } from '../../../activities/egress/policy';
import { loadOperatorPlugins, type OperatorPlugins } from '../../../activities/plugins/operator/load-plugins';
import { operatorPluginRun } from '../../../activities/plugins/operator/run-operator-plugin';
import { failure, pluginContext } from '../../../test/support/plugin-calls';

describe('examples/plugins/chat-message', () => {
  let plugins: OperatorPlugins;
  let server: Server;
  let baseUrl: string;
  const received: Array<{ url: string; body: unknown }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/chat-message'], path.resolve(__dirname, '../../..'));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body: JSON.parse(text) });
        res.statusCode = req.url?.includes('/bad') ? 400 : req.url?.includes('/down') ? 503 : 200;
        res.end(res.statusCode === 200 ? 'ok' : 'invalid_payload');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (config: Record<string, unknown>, egress = pluginContext({}).ctx.egress) => {
    const { ctx, lines } = pluginContext(config, { pluginType: 'chat-message', pluginVersion: '1.0.0' }, egress);
    const plugin = operatorPluginRun(plugins, ctx.call);
    assert.ok(plugin);
    return { result: plugin(ctx), lines };
  };

  it('loads with a valid descriptor', () => {
    const descriptor = plugins.catalog['chat-message'];
    assert.equal(descriptor.version, '1.0.0');
    assert.deepEqual(descriptor.configSchema.required, ['webhookUrl', 'text']);
  });

  it('posts the message as JSON and reports delivery', async () => {
    const { result, lines } = run({ webhookUrl: `${baseUrl}/hooks/T1`, text: 'Deployed api', username: 'deploy-bot' });
    assert.deepEqual(await result, { status: 'success', outputs: { delivered: true, statusCode: 200 } });
    assert.deepEqual(received.at(-1), { url: '/hooks/T1', body: { text: 'Deployed api', username: 'deploy-bot' } });
    assert.deepEqual(lines, [['info', 'message posted (12 characters, HTTP 200)']]);
  });

  it('fails CHAT_REJECTED without retries on a 4xx, CHAT_UNAVAILABLE with retries on a 5xx', async () => {
    const rejected = await failure(run({ webhookUrl: `${baseUrl}/bad`, text: 'x' }).result);
    assert.equal(rejected.type, 'CHAT_REJECTED');
    assert.equal(rejected.nonRetryable, true);
    assert.match(rejected.message, /answered 400: invalid_payload/);
    const down = await failure(run({ webhookUrl: `${baseUrl}/down`, text: 'x' }).result);
    assert.equal(down.type, 'CHAT_UNAVAILABLE');
    assert.equal(down.nonRetryable, false);
  });

  it('is held to the egress policy: loopback is closed by default', async () => {
    const before = received.length;
    const denied = await failure(run({ webhookUrl: `${baseUrl}/hooks/T1`, text: 'x' }, DEFAULT_EGRESS).result);
    assert.equal(denied.type, 'PLUGIN_EGRESS_DENIED');
    assert.equal(denied.nonRetryable, true);
    assert.equal(received.length, before);
  });
});
