/**
 * The example two-phase wait, loaded the way PLUGINS loads it and its side
 * effect run the way the worker runs it (egress policy included), against a
 * local chat webhook. (Its steps parking and released on Temporal through the
 * HTTP API: test/executions-api/operator-plugin-kinds.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_EGRESS } from '../../../activities/egress/policy';
import { loadOperatorPlugins, type OperatorPlugins } from '../../../activities/plugins/operator/load-plugins';
import { operatorPluginRun } from '../../../activities/plugins/operator/run-operator-plugin';
import { failure, pluginContext } from '../../../test/support/plugin-calls';

describe('examples/plugins/chat-ask (a two-phase wait)', () => {
  let plugins: OperatorPlugins;
  let server: Server;
  let baseUrl: string;
  type Posted = { text: string; ask: { signalName: string; correlationKey: string; options: string[] } };
  const received: Array<{ url: string; body: Posted }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/chat-ask'], path.resolve(__dirname, '../../..'));
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body: JSON.parse(text) as Posted });
        res.statusCode = req.url?.includes('/bad') ? 400 : 200;
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const run = (config: Record<string, unknown>, egress = pluginContext({}).ctx.egress) => {
    const { ctx, lines } = pluginContext(config, { pluginType: 'chat-ask', pluginVersion: '1.0.0', stepId: 'ask' }, egress);
    return { result: operatorPluginRun(plugins, ctx.call)!(ctx), lines };
  };

  it("loads as a two-phase wait: a timeout port, and the wait's settings in its config schema", () => {
    const descriptor = plugins.catalog['chat-ask'];
    assert.equal(descriptor.twoPhaseWait, true);
    assert.deepEqual(descriptor.outputPorts, ['default', 'timeout']);
    assert.deepEqual(Object.keys(descriptor.configSchema.properties), [
      'webhookUrl',
      'question',
      'options',
      'signalName',
      'timeout',
      'onTimeout',
      'defaultValue',
      'answer',
    ]);
  });

  it('posts the question with what the answer must carry, and returns the wait', async () => {
    const { result, lines } = run({ webhookUrl: `${baseUrl}/hooks/T1`, question: 'Deploy?', options: ['yes', 'no'] });
    const done = await result;
    const posted = received.at(-1)!;
    assert.equal(posted.url, '/hooks/T1');
    assert.equal(posted.body.text, 'Deploy?');
    assert.deepEqual(posted.body.ask.options, ['yes', 'no']);
    assert.equal(posted.body.ask.signalName, 'chat-answer');
    assert.match(posted.body.ask.correlationKey, /^ask:exec_1:ask:[0-9a-f]{8}$/);
    assert.deepEqual(done, {
      status: 'success',
      outputs: { question: 'Deploy?', correlationKey: posted.body.ask.correlationKey, signalName: 'chat-answer' },
      wait: { signalName: 'chat-answer', correlationKey: posted.body.ask.correlationKey },
    });
    assert.deepEqual(lines, [['info', 'question posted; waiting for signal "chat-answer"']]);
  });

  it('fails CHAT_REJECTED without retries on a 4xx', async () => {
    const rejected = await failure(run({ webhookUrl: `${baseUrl}/bad`, question: 'x' }).result);
    assert.equal(rejected.type, 'CHAT_REJECTED');
    assert.equal(rejected.nonRetryable, true);
  });

  it('is held to the egress policy: loopback is closed by default', async () => {
    const before = received.length;
    const denied = await failure(run({ webhookUrl: `${baseUrl}/hooks/T1`, question: 'x' }, DEFAULT_EGRESS).result);
    assert.equal(denied.type, 'PLUGIN_EGRESS_DENIED');
    assert.equal(received.length, before);
  });
});
