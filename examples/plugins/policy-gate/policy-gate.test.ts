/**
 * The example decider, loaded the way PLUGINS loads it and run the way the
 * worker runs it (egress policy included), against a local policy service.
 * (Its steps on Temporal through the HTTP API: test/executions-api/operator-plugin-kinds.test.ts.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { DEFAULT_EGRESS } from '../../../activities/egress/policy';
import { loadOperatorPlugins, type OperatorPlugins } from '../../../activities/plugins/operator/load-plugins';
import { operatorPluginRun } from '../../../activities/plugins/operator/run-operator-plugin';
import { failure, pluginContext } from '../../../test/support/plugin-calls';

describe('examples/plugins/policy-gate (a decider)', () => {
  let plugins: OperatorPlugins;
  let server: Server;
  let baseUrl: string;
  const received: Array<{ authorization?: string; body: { subject: Record<string, unknown> } }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/policy-gate'], path.resolve(__dirname, '../../..'));
    // Production changes need review, anything named "forbidden" is denied, the rest is allowed; /broken answers 503, /odd nonsense.
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body = JSON.parse(text) as { subject: Record<string, unknown> };
        received.push({ authorization: req.headers.authorization, body });
        if (req.url === '/broken') return void ((res.statusCode = 503), res.end('down'));
        if (req.url === '/odd') return void res.end(JSON.stringify({ decision: 'maybe' }));
        const { subject } = body;
        const decision = subject.service === 'forbidden' ? 'deny' : subject.environment === 'production' ? 'review' : 'allow';
        res.end(JSON.stringify({ decision, reason: `rule for ${String(subject.environment)}` }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => new Promise<void>((resolve) => server.close(() => resolve())));

  const call = (config: Record<string, unknown>, inputs: Record<string, unknown> = {}) => {
    const { ctx, lines } = pluginContext(config, { pluginType: 'policy-gate', pluginVersion: '1.0.0', inputs });
    const run = operatorPluginRun(plugins, ctx.call);
    assert.ok(run);
    return { result: run({ ...ctx, inputs }), lines };
  };

  it('loads as a decider with its ports', () => {
    const descriptor = plugins.catalog['policy-gate'];
    assert.equal(descriptor.kind, 'decider');
    assert.deepEqual(descriptor.outputPorts, ['allow', 'deny', 'review']);
  });

  it('asks the policy service about the item and answers the port of its decision', async () => {
    const { result, lines } = call({ url: `${baseUrl}/decide`, token: 't0ken' }, { service: 'api', environment: 'production' });
    assert.deepEqual(await result, {
      status: 'success',
      outputs: { decision: 'review', reason: 'rule for production' },
      activePorts: ['review'],
    });
    assert.deepEqual(received.at(-1), { authorization: 'Bearer t0ken', body: { subject: { service: 'api', environment: 'production' } } });
    assert.deepEqual(lines, [['info', 'decision: review (rule for production)']]);
  });

  it('is held to the egress policy: loopback is closed by default', async () => {
    const { ctx } = pluginContext({ url: `${baseUrl}/decide` }, { pluginType: 'policy-gate', pluginVersion: '1.0.0' }, DEFAULT_EGRESS);
    const before = received.length;
    const denied = await failure(operatorPluginRun(plugins, ctx.call)!(ctx));
    assert.equal(denied.type, 'PLUGIN_EGRESS_DENIED');
    assert.equal(received.length, before);
  });

  it('fails POLICY_UNAVAILABLE (retried) on a 5xx and POLICY_ANSWER_INVALID (not retried) on an unknown decision', async () => {
    const down = await failure(call({ url: `${baseUrl}/broken` }).result);
    assert.equal(down.type, 'POLICY_UNAVAILABLE');
    assert.equal(down.nonRetryable, false);
    const odd = await failure(call({ url: `${baseUrl}/odd` }).result);
    assert.equal(odd.type, 'POLICY_ANSWER_INVALID');
    assert.equal(odd.nonRetryable, true);
  });
});
