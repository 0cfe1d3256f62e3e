/**
 * Operator plugins of every kind (the examples under examples/plugins/,
 * loaded as PLUGINS loads them) end to end through the HTTP API on Temporal:
 * listed with their kind, published and pinned, and run by the worker.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadOperatorPlugins, type OperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import { grantRole } from '../support/grants';
import { ROOT } from '../support/process';
import { execute, finished, publish, startExecEnv, orgContext, waitFor, type ExecEnv, type OrgContext } from './support';

/** A local stand-in for the team's own systems: each test says how a path answers. */
type Handler = (req: IncomingMessage, body: unknown, res: ServerResponse) => void;

describe('executions API: operator plugins of every kind', function () {
  this.timeout(90_000);
  let plugins: OperatorPlugins;
  let env: ExecEnv;
  let org: OrgContext;
  let server: Server;
  let baseUrl: string;
  const routes = new Map<string, Handler>();
  const received: Array<{ method: string; url: string; body: unknown }> = [];

  before(async () => {
    plugins = await loadOperatorPlugins(
      [
        './examples/plugins/policy-gate',
        './examples/plugins/chat-ask',
        './examples/plugins/change-feed',
        './examples/plugins/ticket-events',
      ],
      ROOT,
    );
    env = await startExecEnv({ operatorPlugins: plugins });
    org = await orgContext(env);
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const body: unknown = text === '' ? null : JSON.parse(text);
        received.push({ method: req.method ?? '', url: req.url ?? '', body });
        const handler = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
        if (handler) return handler(req, body, res);
        res.statusCode = 404;
        res.end('no such route');
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

  const json = (res: ServerResponse, value: unknown, status = 200) => {
    res.statusCode = status;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(value));
  };

  describe('decider (policy-gate)', () => {
    //   start ─▶ changes (code-exec: 3 items) ─▶ gate ─allow──▶ deploy
    //                                              ├─review─▶ review
    //                                              └─deny───▶ refuse
    const gated = (key: string) => ({
      key,
      name: 'Gated changes',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        changes: {
          type: 'module',
          pluginType: 'code-exec',
          config: {
            code: "return [{service: 'api', environment: 'staging'}, {service: 'db', environment: 'production'}, {service: 'forbidden', environment: 'staging'}]",
            returns: 'items',
          },
        },
        gate: { type: 'decider', pluginType: 'policy-gate', config: { url: `${baseUrl}/policy` } },
        deploy: { type: 'module', pluginType: 'no-op' },
        review: { type: 'module', pluginType: 'no-op' },
        refuse: { type: 'module', pluginType: 'no-op' },
      },
      connections: [
        { from: 'start', to: 'changes' },
        { from: 'changes', to: 'gate' },
        { from: 'gate', sourcePort: 'allow', to: 'deploy' },
        { from: 'gate', sourcePort: 'review', to: 'review' },
        { from: 'gate', sourcePort: 'deny', to: 'refuse' },
      ],
    });

    before(() => {
      routes.set('/policy', (_req, body, res) => {
        const { subject } = body as { subject: { service: string; environment: string } };
        const decision = subject.service === 'forbidden' ? 'deny' : subject.environment === 'production' ? 'review' : 'allow';
        json(res, { decision, reason: `${subject.service} in ${subject.environment}` });
      });
    });

    it('is listed as a decider with its ports', async () => {
      const one = await org.auth(env.t.request.get('/workflows/plugins/policy-gate')).expect(200);
      assert.equal(one.body.kind, 'decider');
      assert.equal(one.body.pluginType, 'decider');
      assert.deepEqual(one.body.outputPorts, ['allow', 'deny', 'review']);
      const deciders = await org.auth(env.t.request.get('/workflows/plugins')).query({ type: 'decider' }).expect(200);
      assert.deepEqual(
        deciders.body.data.map((plugin: { name: string }) => plugin.name),
        ['case', 'conditional', 'policy-gate'],
      );
    });

    it('publishes with its kind pinned; refuses a port it does not declare and a step of type module', async () => {
      const res = await org.auth(env.t.request.post('/workflows/definitions')).send(gated('gated-pinned'));
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const revision = await org.auth(env.t.request.get(`/workflows/definitions/${res.body.workflow.id}/revisions/1`)).expect(200);
      assert.deepEqual(revision.body.definition.pinnedPlugins, {
        'policy-gate': { version: '1.0.0', executeMode: 'each', kind: 'decider' },
      });

      const doc = gated('gated-bad');
      const badPort = await org
        .auth(env.t.request.post('/workflows/definitions'))
        .send({ ...doc, connections: [...doc.connections.slice(0, 2), { from: 'gate', sourcePort: 'maybe', to: 'deploy' }] });
      assert.equal(badPort.status, 400);
      assert.match(JSON.stringify(badPort.body.errors), /maybe/);
      const asModule = await org
        .auth(env.t.request.post('/workflows/definitions'))
        .send({ ...doc, steps: { ...doc.steps, gate: { ...doc.steps.gate, type: 'module' } } });
      assert.equal(asModule.status, 400);
      assert.match(JSON.stringify(asModule.body.errors), /plugin policy-gate is a decider; it cannot run in a step of type module/);
    });

    it('runs on Temporal: each item goes to the port the policy service decided', async () => {
      await publish(env, org, gated('gated-run'));
      const id = await execute(env, org, 'gated-run');
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const steps = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`)).expect(200);
      const record = (stepId: string) =>
        (steps.body.data as Array<{ stepId: string; status: string; items?: unknown[] }>).find((s) => s.stepId === stepId);
      const gate = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/gate`)).expect(200);
      assert.equal(gate.body.record.items.length, 3, 'the decider passes its items on');
      const items = async (stepId: string): Promise<unknown[]> =>
        (
          (await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/${stepId}`)).expect(200)).body as {
            record: { items: unknown[] };
          }
        ).record.items;
      assert.deepEqual(await items('deploy'), [{ service: 'api', environment: 'staging' }]);
      assert.deepEqual(await items('review'), [{ service: 'db', environment: 'production' }]);
      assert.deepEqual(await items('refuse'), [{ service: 'forbidden', environment: 'staging' }]);
      assert.equal(record('deploy')?.status, 'completed');
      assert.equal(received.filter((r) => r.url === '/policy').length >= 3, true, 'one call per item (each mode)');
    });
  });

  describe('two-phase wait (chat-ask)', () => {
    //   start ─▶ ask ─default─▶ after (set-variable answer)
    //              └timeout─▶ late
    const asking = (key: string, config: Record<string, unknown>) => ({
      key,
      name: 'Ask in chat',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        ask: {
          type: 'module',
          pluginType: 'chat-ask',
          config: { webhookUrl: '${{ secrets.CHAT_ASK_URL }}', question: 'Deploy ${{ workflow.inputs.service }}?', ...config },
        },
        after: { type: 'module', pluginType: 'set-variable', config: { path: 'answer', value: '${{ steps.ask.outputs.answer }}' } },
        late: { type: 'module', pluginType: 'no-op' },
      },
      connections: [
        { from: 'start', to: 'ask' },
        { from: 'ask', to: 'after' },
        { from: 'ask', sourcePort: 'timeout', to: 'late' },
      ],
      variables: { answer: { initialValue: null } },
      outputs: { answer: '${{ variables.answer }}', question: '${{ steps.ask.outputs.question }}' },
    });
    const asked: Array<{ text: string; ask: { signalName: string; correlationKey: string } }> = [];

    before(async () => {
      routes.set('/chat', (_req, body, res) => {
        asked.push(body as (typeof asked)[number]);
        res.end('ok');
      });
      await secret('CHAT_ASK_URL', `${baseUrl}/chat`);
    });

    it('is listed as a two-phase wait, with a timeout port and the wait settings in its config', async () => {
      const one = await org.auth(env.t.request.get('/workflows/plugins/chat-ask')).expect(200);
      assert.equal(one.body.kind, 'module');
      assert.equal(one.body.twoPhaseWait, true);
      assert.equal(one.body.nodeState, false);
      assert.deepEqual(one.body.outputPorts, ['default', 'timeout']);
      assert.deepEqual(one.body.configSchema.properties.onTimeout.enum, ['error', 'continue']);
    });

    it('runs on Temporal: posts the question, parks until the answer comes by correlation key, and outputs both', async () => {
      const workflowId = await publish(env, org, asking('ask-run', { timeout: '1h' }));
      const revision = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/revisions/1`)).expect(200);
      assert.deepEqual(revision.body.definition.pinnedPlugins, {
        'chat-ask': { version: '1.0.0', executeMode: 'each', twoPhaseWait: true },
      });
      const before = asked.length;
      const id = await execute(env, org, 'ask-run', { inputs: { service: 'api' } });
      const state = await waitFor(env, org, id, (body) => Array.isArray(body.pendingWaits) && body.pendingWaits.length === 1, '/state');
      assert.equal(asked.length, before + 1, 'the question was posted once');
      const { signalName, correlationKey } = asked.at(-1)!.ask;
      assert.equal(asked.at(-1)!.text, 'Deploy api?');
      const [wait] = state.pendingWaits as Array<{ stepId: string; signalNames: string[]; correlationKey: string; timeoutAt?: string }>;
      assert.deepEqual([wait.stepId, wait.signalNames, wait.correlationKey], ['ask', ['chat-answer'], correlationKey]);
      assert.ok(wait.timeoutAt, 'the wait has its timeout');

      // Only the key the question carries releases it.
      const wrong = await org
        .auth(env.t.request.post(`/workflows/signals/${signalName}`))
        .send({ correlationKey: 'ask:other', payload: {} });
      assert.equal(wrong.status, 409);
      const answered = await org
        .auth(env.t.request.post(`/workflows/signals/${signalName}`))
        .send({ correlationKey, payload: { answer: 'yes', user: 'ana' } });
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.outputs, { answer: 'yes', question: 'Deploy api?' });
      const step = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/ask`)).expect(200);
      assert.equal(step.body.record.outputs.correlationKey, correlationKey);
      assert.equal(step.body.record.outputs.user, 'ana');
      assert.equal(step.body.record.outputs.timedOut, false);
      assert.deepEqual(step.body.record.outputs.payload, { answer: 'yes', user: 'ana' });
    });

    it('declares who may answer and what under `answer`, as a signal-wait does: the approval gate enforces it', async () => {
      const answer = {
        title: 'Deploy ${{ workflow.inputs.service }}?',
        approvers: { roles: ['admin'] },
        excludeStarter: true,
        form: { type: 'object', required: ['answer'], properties: { answer: { type: 'string', enum: ['yes', 'no'] } } },
      };
      // A declaration the engine refuses is refused at publish, at its path.
      const bad = await org
        .auth(env.t.request.post('/workflows/definitions'))
        .send(asking('ask-bad', { answer: { ...answer, required: 0 } }));
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
      assert.match(JSON.stringify(bad.body.errors), /config\/answer\/required/);

      await publish(env, org, asking('ask-approve', { timeout: '1h', answer }));
      const id = await execute(env, org, 'ask-approve', { inputs: { service: 'api' } });
      await waitFor(env, org, id, (body) => Array.isArray(body.pendingWaits) && body.pendingWaits.length === 1, '/state');
      const { signalName, correlationKey } = asked.at(-1)!.ask;
      const byId = (req: import('supertest').Test) => req.send({ answer: 'yes' });

      // Nobody's answer is checked by correlation key, and the starter may not answer (four eyes).
      const byKey = await org
        .auth(env.t.request.post(`/workflows/signals/${signalName}`))
        .send({ correlationKey, payload: { answer: 'yes' } });
      assert.equal(byKey.status, 409, JSON.stringify(byKey.body));
      const starter = await byId(org.auth(env.t.request.post(`/workflows/executions/${id}/signals/${signalName}`)));
      assert.equal(starter.status, 403, JSON.stringify(starter.body));

      // Another admin answers through the form: a value it does not allow is 422, nothing delivered; then yes.
      const { userId } = await grantRole(env.db, org.id, 'admin');
      const token = await env.t.token({ organizationId: org.id, userId });
      const other = (path: string) => env.t.request.post(path).set('Authorization', `Bearer ${token}`);
      const invalid = await other(`/workflows/executions/${id}/signals/${signalName}`).send({ answer: 'maybe' });
      assert.equal(invalid.status, 422, JSON.stringify(invalid.body));
      const inbox = await env.t.request.get('/workflows/approvals').set('Authorization', `Bearer ${token}`).expect(200);
      assert.deepEqual(
        (inbox.body.data as Array<{ executionId: string; title: string }>)
          .filter((wait) => wait.executionId === id)
          .map((wait) => wait.title),
        ['Deploy api?'],
      );
      const answered = await byId(other(`/workflows/executions/${id}/signals/${signalName}`));
      assert.equal(answered.status, 200, JSON.stringify(answered.body));
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.outputs, { answer: 'yes', question: 'Deploy api?' });
      const step = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/ask`)).expect(200);
      assert.deepEqual(
        (step.body.record.outputs.answers as Array<{ by: string }>).map((given) => given.by),
        [userId],
      );
    });

    it('times out through its timeout port with onTimeout continue', async () => {
      await publish(env, org, asking('ask-late', { timeout: '1s', onTimeout: 'continue' }));
      const id = await execute(env, org, 'ask-late', { inputs: { service: 'db' } });
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const steps = (await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`)).expect(200)).body.data as Array<{
        stepId: string;
        status: string;
      }>;
      const status = (stepId: string) => steps.find((s) => s.stepId === stepId)?.status;
      assert.equal(status('late'), 'completed');
      assert.notEqual(status('after'), 'completed');
    });
  });

  describe('per-step state (change-feed)', () => {
    //   start ─▶ feed ─▶ more ─true──▶ collect ─▶ feed:callback (back-edge)
    //                       └false─▶ done
    const draining = (key: string) => ({
      key,
      name: 'Drain the feed',
      variables: { all: { initialValue: [] } },
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        feed: {
          type: 'module',
          pluginType: 'change-feed',
          config: { url: `${baseUrl}/feed`, token: '${{ secrets.FEED_TOKEN }}', limit: 2 },
        },
        more: { type: 'decider', pluginType: 'conditional', config: { expression: 'steps.feed.outputs.count > 0' } },
        collect: {
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'all', value: '${{ concat(variables.all, steps.feed.outputs.entries) }}' },
        },
        done: { type: 'module', pluginType: 'no-op' },
      },
      connections: [
        { from: 'start', to: 'feed' },
        { from: 'feed', to: 'more' },
        { from: 'more', sourcePort: 'true', to: 'collect' },
        { from: 'collect', to: 'feed', targetPort: 'callback' },
        { from: 'more', sourcePort: 'false', to: 'done' },
      ],
      outputs: { all: '${{ variables.all }}', pages: '${{ steps.feed.outputs.pages }}' },
    });
    const CHANGES = ['c1', 'c2', 'c3', 'c4', 'c5'].map((id) => ({ id }));
    const feedAsked: Array<{ search: string; authorization?: string }> = [];

    before(async () => {
      routes.set('/feed', (req, _body, res) => {
        const url = new URL(req.url ?? '/', 'http://feed');
        feedAsked.push({ search: url.search, authorization: req.headers.authorization });
        const after = url.searchParams.get('after');
        const start = after === null ? 0 : CHANGES.findIndex((change) => change.id === after) + 1;
        const entries = CHANGES.slice(start, start + Number(url.searchParams.get('limit')));
        json(res, { entries, ...(entries.length > 0 ? { next: entries.at(-1)!.id } : {}) });
      });
      await secret('FEED_TOKEN', 'feed-t0ken-s3cret');
    });

    it('is listed with its state', async () => {
      const one = await org.auth(env.t.request.get('/workflows/plugins/change-feed')).expect(200);
      assert.equal(one.body.nodeState, true);
      assert.equal(one.body.executeMode, 'all');
    });

    it('runs on Temporal: each run of the step goes on from the cursor the previous one left, and a new execution starts afresh', async () => {
      const workflowId = await publish(env, org, draining('feed-run'));
      const revision = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/revisions/1`)).expect(200);
      assert.deepEqual(revision.body.definition.pinnedPlugins, {
        'change-feed': { version: '1.0.0', executeMode: 'all', nodeState: true },
      });
      for (const round of [1, 2]) {
        const before = feedAsked.length;
        const id = await execute(env, org, 'feed-run');
        const done = await waitFor(env, org, id, finished);
        assert.equal(done.status, 'completed', JSON.stringify(done));
        assert.deepEqual(done.outputs, { all: CHANGES, pages: 4 }, `execution ${round}`);
        assert.deepEqual(
          feedAsked.slice(before).map((asked) => asked.search),
          ['?limit=2', '?after=c2&limit=2', '?after=c4&limit=2', '?after=c5&limit=2'],
        );
        assert.ok(feedAsked.slice(before).every((asked) => asked.authorization === 'Bearer feed-t0ken-s3cret'));
      }
    });
  });

  describe('trigger (ticket-events)', () => {
    //   events (ticket-events trigger) ─▶ note (set-variable issue from the event)
    const ticketed = (key: string, apiPath: string) => ({
      key,
      name: 'On ticket events',
      variables: { issue: { initialValue: null } },
      steps: {
        events: {
          type: 'trigger',
          pluginType: 'ticket-events',
          config: {
            apiUrl: `${baseUrl}${apiPath}`,
            token: '${{ secrets.TICKETS_TOKEN }}',
            events: ['issue.transitioned'],
            project: '${{ vars.TICKETS_PROJECT }}',
          },
        },
        note: { type: 'module', pluginType: 'set-variable', config: { path: 'issue', value: '${{ steps.events.outputs.body.issue }}' } },
      },
      connections: [{ from: 'events', to: 'note' }],
      outputs: { issue: '${{ variables.issue }}' },
    });
    const TOKEN = 'tickets-t0ken-s3cret';
    const subscriptions = new Map<string, { url: string; events: string[] }>();
    const deleted: string[] = [];
    let next = 0;

    before(async () => {
      routes.set('/tickets/subscriptions', (req, body, res) => {
        if (req.headers.authorization !== `Bearer ${TOKEN}`) return json(res, { error: 'bad token' }, 401);
        const id = `sub-${++next}`;
        subscriptions.set(id, body as { url: string; events: string[] });
        json(res, { id });
      });
      routes.set('/locked/subscriptions', (_req, _body, res) => json(res, { error: 'project locked' }, 403));
      await secret('TICKETS_TOKEN', TOKEN);
      const variable = await org.auth(env.t.request.post('/workflows/config')).send({ name: 'TICKETS_PROJECT', value: 'OPS', path: '/' });
      assert.equal(variable.status, 201, JSON.stringify(variable.body));
    });
    // DELETE /tickets/subscriptions/{id}: a path per id, answered here.
    beforeEach(() => {
      for (const id of ['sub-1', 'sub-2', 'sub-3'])
        routes.set(`/tickets/subscriptions/${id}`, (_req, _body, res) => {
          deleted.push(id);
          subscriptions.delete(id);
          res.statusCode = 204;
          res.end();
        });
    });

    it('is listed as a trigger', async () => {
      const one = await org.auth(env.t.request.get('/workflows/plugins/ticket-events')).expect(200);
      assert.equal(one.body.kind, 'trigger');
      assert.deepEqual(one.body.inputPorts, []);
      const triggers = await org.auth(env.t.request.get('/workflows/plugins')).query({ type: 'trigger' }).expect(200);
      assert.ok(triggers.body.data.some((plugin: { name: string }) => plugin.name === 'ticket-events'));
    });

    it('activation subscribes its start URL; each event starts a run; deactivation unsubscribes and the URL stops working', async () => {
      const workflowId = await publish(env, org, ticketed('ticket-run', '/tickets'));
      const revision = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/revisions/1`)).expect(200);
      assert.deepEqual(revision.body.definition.pinnedPlugins, {
        'ticket-events': { version: '1.0.0', executeMode: 'each', kind: 'trigger' },
      });
      assert.equal(subscriptions.size, 0, 'saving has no side effect');

      const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
      assert.equal(activated.status, 200, JSON.stringify(activated.body));
      const state = activated.body.alias.triggerStates.events;
      assert.equal(state.status, 'live');
      const startUrl = state.runtimeMetadata.webhookUrl as string;
      assert.match(startUrl, /^http:\/\/api\.test\/workflows\/webhooks\/[A-Za-z0-9_-]{32,}$/);
      const [subscriptionId, subscription] = [...subscriptions.entries()].at(-1)!;
      assert.deepEqual(subscription, { url: startUrl, events: ['issue.transitioned'], project: 'OPS' });
      assert.deepEqual(state.runtimeMetadata.pluginState, { subscriptionId });
      assert.equal(JSON.stringify(activated.body).includes(TOKEN), false, 'the secret never leaves the worker');

      // The ticket system sends an event to the URL it was given.
      const path = new URL(startUrl).pathname;
      const sent = await env.t.request.post(path).send({ type: 'issue.transitioned', issue: 'OPS-12' });
      assert.equal(sent.status, 202, JSON.stringify(sent.body));
      const list = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`)).expect(200);
      assert.equal(list.body.data.length, 1);
      const done = await waitFor(env, org, list.body.data[0].id as string, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.outputs, { issue: 'OPS-12' });
      // A link preview's GET starts nothing.
      assert.equal((await env.t.request.get(path)).status, 405);

      const off = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/deactivate`));
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.equal('deactivateError' in off.body, false, JSON.stringify(off.body));
      assert.ok(deleted.includes(subscriptionId), 'the plugin deleted its subscription');
      assert.equal((await env.t.request.post(path).send({ issue: 'OPS-13' })).status, 404);
    });

    it('a refusal by the plugin rolls the activation back, with its code, and nothing is subscribed', async () => {
      const workflowId = await publish(env, org, ticketed('ticket-locked', '/locked'));
      const before = subscriptions.size;
      const res = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
      assert.equal(res.status, 502, JSON.stringify(res.body));
      assert.match(res.body.detail ?? res.body.message ?? JSON.stringify(res.body), /TICKETS_REJECTED/);
      const alias = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases/latest`)).expect(200);
      assert.equal(alias.body.active, false);
      assert.equal(alias.body.triggerStates.events.status, 'failed');
      assert.equal(alias.body.triggerStates.events.lastError.code, 'TICKETS_REJECTED');
      assert.match(alias.body.triggerStates.events.lastError.message, /answered 403 to POST/);
      assert.equal(subscriptions.size, before);
    });
  });
});
