/**
 * An operator's own plugin (the example chat-message, loaded as PLUGINS
 * loads it) end to end through the HTTP API: listed with its full
 * descriptor, validated at publish like a built-in (its version pinned into
 * the revision), run by the worker on Temporal against a local chat webhook
 * with the secret it reads redacted, and refused at run time by a worker
 * without a compatible version.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOperatorPlugins, type OperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { describePlugin } from '../../workflows/engine';
import { createTestApp } from '../support/app';
import { ROOT } from '../support/process';
import { execute, finished, publish, startExecEnv, orgContext, waitFor, type ExecEnv, type OrgContext } from './support';

const chatStep = (config: Record<string, unknown>) => ({
  name: 'Chat',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    notify: { type: 'module', pluginType: 'chat-message', config },
  },
  connections: [{ from: 'start', to: 'notify' }],
});

describe('executions API: operator plugins (PLUGINS)', function () {
  this.timeout(90_000);
  let plugins: OperatorPlugins;
  let env: ExecEnv;
  let org: OrgContext;
  let server: Server;
  let baseUrl: string;
  const received: Array<{ url: string; body: { text: string } }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(['./examples/plugins/chat-message'], ROOT);
    env = await startExecEnv({ operatorPlugins: plugins });
    org = await orgContext(env);
    // A chat service's incoming webhook; /reject answers 400 and echoes the URL it was called at (the secret).
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        received.push({ url: req.url ?? '', body: JSON.parse(text) as { text: string } });
        res.statusCode = req.url?.startsWith('/reject') ? 400 : 200;
        res.end(res.statusCode === 200 ? 'ok' : `no such hook: ${baseUrl}${req.url}`);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await env?.stop();
  });

  async function secret(name: string, value: string): Promise<void> {
    const created = await org.auth(env.t.request.post('/workflows/config')).send({ name, value, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
  }

  it('GET /workflows/plugins lists it with its full descriptor, and /workflows/metadata counts it', async () => {
    const list = await org.auth(env.t.request.get('/workflows/plugins')).expect(200);
    const listed = list.body.data.find((d: { name: string }) => d.name === 'chat-message');
    const expected = JSON.parse(JSON.stringify(describePlugin(plugins.catalog['chat-message'], 'operator')));
    assert.deepEqual(listed, expected);
    assert.equal(listed.version, '1.0.0');
    assert.equal(listed.category, 'communication');
    assert.equal(listed.source, 'operator');
    assert.deepEqual(listed.configSchema.required, ['webhookUrl', 'text']);
    assert.equal(listed.configSchema.type, 'object');
    assert.equal(listed.outputSchema.properties.delivered.type, 'boolean');
    assert.equal(listed.examples.length, 1);
    assert.match(listed.documentation, /CHAT_REJECTED/);
    const one = await org.auth(env.t.request.get('/workflows/plugins/chat-message')).expect(200);
    assert.deepEqual(one.body, expected);
    assert.deepEqual((await org.auth(env.t.request.get('/workflows/plugins')).query({ q: 'incoming-webhook' })).body.data.length, 1);
    const metadata = await env.t.request.get('/workflows/metadata').expect(200);
    assert.ok(metadata.body.supportedPluginTypes.includes('chat-message'));
  });

  it('publishes a definition using it (pinning its version); refuses an unknown plugin and a config its schema rejects', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      ...chatStep({ webhookUrl: '${{ secrets.CHAT_WEBHOOK_URL }}', text: 'hello' }),
      key: 'chat-pinned',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const revision = await org.auth(env.t.request.get(`/workflows/definitions/${res.body.workflow.id}/revisions/1`)).expect(200);
    assert.deepEqual(revision.body.definition.pinnedPlugins, { 'chat-message': { version: '1.0.0', executeMode: 'each' } });

    const unknown = await org.auth(env.t.request.post('/workflows/definitions')).send({
      ...chatStep({ webhookUrl: 'x', text: 'hello' }),
      steps: { start: { type: 'trigger', pluginType: 'manual' }, notify: { type: 'module', pluginType: 'chat-messages', config: {} } },
    });
    assert.equal(unknown.status, 400);
    assert.ok(
      unknown.body.errors.some((e: { message: string }) => e.message.includes('Unknown plugin type: chat-messages')),
      JSON.stringify(unknown.body),
    );
    const missing = await org.auth(env.t.request.post('/workflows/definitions')).send(chatStep({ webhookUrl: 'x', text: 7 }));
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors.map((e: { path: string }) => e.path).sort(), ['/steps/notify/config/text']);
  });

  it('runs on Temporal: the message reaches the webhook taken from a secret, and the secret is redacted', async () => {
    const token = `T-${randomBytes(12).toString('hex')}`;
    await secret('CHAT_WEBHOOK_URL', `${baseUrl}/hooks/${token}`);
    await publish(env, org, {
      ...chatStep({ webhookUrl: '${{ secrets.CHAT_WEBHOOK_URL }}', text: 'Deployed api', username: 'deploy-bot' }),
      key: 'chat-run',
    });
    const id = await execute(env, org, 'chat-run');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(received.at(-1), { url: `/hooks/${token}`, body: { text: 'Deployed api', username: 'deploy-bot' } });
    const step = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/notify`)).expect(200);
    assert.deepEqual(step.body.record.outputs, { delivered: true, statusCode: 200 });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.ok(
      logs.body.data.some((line: { message: string }) => line.message === 'message posted (12 characters, HTTP 200)'),
      JSON.stringify(logs.body),
    );

    // The rejecting hook echoes the secret URL: the step's error carries it redacted.
    const rejectToken = `R-${randomBytes(12).toString('hex')}`;
    await secret('CHAT_REJECT_URL', `${baseUrl}/reject/${rejectToken}`);
    await publish(env, org, { ...chatStep({ webhookUrl: '${{ secrets.CHAT_REJECT_URL }}', text: 'x' }), key: 'chat-reject' });
    const rejected = await waitFor(env, org, await execute(env, org, 'chat-reject'), finished);
    assert.equal(rejected.status, 'failed');
    const error = rejected.error as { type: string; message: string; stepId: string };
    assert.equal(error.type, 'CHAT_REJECTED');
    assert.equal(error.stepId, 'notify');
    assert.match(error.message, /answered 400: no such hook: <redacted>/);
    for (const path of ['', '/steps', '/logs'])
      assert.equal(
        (await org.auth(env.t.request.get(`/workflows/executions/${rejected.id as string}${path}`))).text.includes(rejectToken),
        false,
      );
  });

  it('fails the step clearly, without retries, when the worker has no compatible version', async () => {
    // An API already upgraded to chat-message 2.0.0 publishes; this file's worker still runs 1.0.0.
    const upgraded = await loadOperatorPlugins(['./test/fixtures/plugins/chat-message-v2.ts'], ROOT);
    const api = createTestApp({ routes: [...workflowRoutes({ ...env.deps, plugins: upgraded.catalog }), ...executionRoutes(env.deps)] });
    const token = await api.token({ organizationId: org.id, userId: org.userId });
    await secret('CHAT_V2_URL', `${baseUrl}/hooks/v2`);
    const res = await api.request
      .post('/workflows/definitions')
      .set('Authorization', `Bearer ${token}`)
      .send({ ...chatStep({ webhookUrl: '${{ secrets.CHAT_V2_URL }}', text: 'from v2' }), key: 'chat-v2' });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const before = received.length;
    const started = Date.now();
    const done = await waitFor(env, org, await execute(env, org, 'chat-v2'), finished);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.deepEqual(done.error, {
      type: 'PLUGIN_VERSION_MISMATCH',
      message:
        'plugin "chat-message" is at version 1.0.0 in this worker, which cannot run steps validated against version 2.0.0: ' +
        'run a worker with a compatible version, or publish the workflow again',
      stepId: 'notify',
    });
    assert.equal(received.length, before, 'the plugin never ran');
    assert.ok(Date.now() - started < 10_000, 'not retried');
  });
});
