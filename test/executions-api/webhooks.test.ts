/**
 * Webhook ingress: start mode with HMAC verification, signal mode by
 * correlation key, method checks, and tokens that stop resolving on
 * re-activation and deactivation. (Signing, replays and what is never stored:
 * webhook-security.test.ts.)
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { signedHeaders } from '../support/webhook-signing';
import { countExecutions, finished, publish, useExecEnv, waitFor } from './support';

const SECRET = 'hook-secret-value';

describe('executions API: webhook ingress', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  async function activate(workflowId: string): Promise<string> {
    const res = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const url = aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string;
    return new URL(url).pathname;
  }

  async function executionsOf(workflowId: string): Promise<Array<{ id: string }>> {
    return (await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`))).body.data as Array<{ id: string }>;
  }

  it('starts an execution with the request as the payload, verifying the HMAC signature', async () => {
    const workflowId = await publish(env, org, {
      name: 'Hooked',
      steps: [
        { id: 'hook', type: 'trigger', pluginType: 'webhook', config: { mode: 'start', method: 'POST', secret: SECRET } },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          config: { message: 'got ${{ steps.hook.outputs.body.event }} via ${{ workflow.inputs.method }}' },
          dependsOn: ['hook'],
        },
      ],
    });
    const path = await activate(workflowId);
    const body = JSON.stringify({ event: 'push' });

    const unsigned = await env.t.request.post(path).set('Content-Type', 'application/json').send(body);
    assert.equal(unsigned.status, 401);
    assert.match(unsigned.headers['content-type'], /problem\+json/);
    const forged = await env.t.request.post(path).set('Content-Type', 'application/json').set(signedHeaders(body, 'wrong')).send(body);
    assert.equal(forged.status, 401);
    const wrongMethod = await env.t.request.put(path).set('Content-Type', 'application/json').set(signedHeaders(body, SECRET)).send(body);
    assert.equal(wrongMethod.status, 405);
    assert.equal(await countExecutions(env.db, org.id), 0, 'nothing started by refused requests');

    const accepted = await env.t.request
      .post(`${path}?source=ci`)
      .set('Content-Type', 'application/json')
      .set(signedHeaders(body, SECRET))
      .set('Authorization', 'Bearer should-not-travel')
      .send(body);
    assert.equal(accepted.status, 202, JSON.stringify(accepted.body));

    const [started] = await executionsOf(workflowId);
    // The answer names the run it started.
    assert.deepEqual(accepted.body, { accepted: true, executionId: started.id });
    const execution = await waitFor(env, org, started.id, finished);
    assert.equal(execution.status, 'completed', JSON.stringify(execution));
    const trigger = execution.trigger as { source: string; payload: { query: unknown; headers: Record<string, string> } };
    assert.equal(trigger.source, 'webhook');
    assert.deepEqual(trigger.payload.query, { source: 'ci' });
    assert.equal(trigger.payload.headers.authorization, undefined, 'auth headers are removed');
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${started.id}/logs`));
    assert.equal(logs.body.data[0].message, 'got push via POST');
  });

  it('answers 404 to unknown tokens, and to old tokens after re-activation or deactivation', async () => {
    const workflowId = await publish(env, org, {
      name: 'Rotating',
      steps: [
        { id: 'hook', type: 'trigger', pluginType: 'webhook', config: {} },
        { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['hook'] },
      ],
    });
    assert.equal((await env.t.request.post('/workflows/webhooks/0123456789abcdef0123456789abcdef').send({})).status, 404);
    const first = await activate(workflowId);
    await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/deactivate`));
    assert.equal((await env.t.request.post(first).send({})).status, 404);
    const second = await activate(workflowId);
    assert.notEqual(second, first);
    assert.equal((await env.t.request.post(first).send({})).status, 404);
    assert.equal((await env.t.request.post(second).send({ a: 1 })).status, 202);
  });

  describe('keeps a webhook URL while its alias stays active: across a new revision and an alias move; rotation is deactivate+activate', () => {
    // One workflow's webhook URLs followed step by step (each test picks up where the one before left off).
    const hooked = (message: string, hookId = 'hook') => ({
      name: 'Staying',
      key: 'staying-hook',
      steps: [
        { id: hookId, type: 'trigger', pluginType: 'webhook', config: {} },
        { id: 'note', type: 'module', pluginType: 'log', config: { message }, dependsOn: [hookId] },
      ],
    });
    const put = (body: Record<string, unknown>) => org.auth(env.t.request.put('/workflows/definitions/staying-hook')).send(body);
    const alias = (name: string, path = '') => `/workflows/definitions/staying-hook/aliases/${name}${path}`;
    const urlOf = (triggers: Array<{ stepId: string; webhookUrl?: string }>, stepId = 'hook') =>
      new URL(String(triggers.find((t) => t.stepId === stepId)?.webhookUrl)).pathname;
    /** Starts a run through `path`; its revision and log line. */
    const runThrough = async (path: string, headers: Record<string, string> = {}) => {
      const res = await env.t.request.post(path).set(headers).send({ n: 1 });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.accepted, true);
      const execution = await waitFor(env, org, res.body.executionId as string, finished);
      assert.equal(execution.status, 'completed', JSON.stringify(execution));
      const logs = await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId as string}/logs`));
      return { revision: execution.revision, message: logs.body.data[0].message as string, executionId: res.body.executionId as string };
    };
    let latest: string;
    let prod: string;

    it('an activated alias’s URL runs the revision it names', async () => {
      assert.equal((await put(hooked('one'))).status, 201);
      const on = await org.auth(env.t.request.post(alias('latest', '/activate'))).expect(200);
      latest = urlOf(on.body.alias.triggers);
      assert.deepEqual(await runThrough(latest).then((r) => [r.revision, r.message]), [1, 'one']);
    });

    it('revision 2: `latest` follows it with the same URL, which the publish answer shows and which now runs revision 2', async () => {
      const second = await put(hooked('two'));
      assert.equal(second.body.mode, 'new-revision');
      assert.equal(urlOf(second.body.triggers), latest);
      assert.equal(second.body.latestAlias.triggerStates.hook.status, 'live');
      assert.deepEqual(await runThrough(latest).then((r) => [r.revision, r.message]), [2, 'two']);
    });

    it('a named alias moved to another revision keeps its URL too', async () => {
      await org
        .auth(env.t.request.put(alias('prod')))
        .send({ revision: 1 })
        .expect(201);
      prod = urlOf((await org.auth(env.t.request.post(alias('prod', '/activate'))).expect(200)).body.alias.triggers);
      assert.notEqual(prod, latest);
      assert.deepEqual(await runThrough(prod).then((r) => [r.revision, r.message]), [1, 'one']);
      const moved = await org
        .auth(env.t.request.put(alias('prod')))
        .send({ revision: 2 })
        .expect(200);
      assert.equal(urlOf(moved.body.triggers), prod);
      assert.deepEqual(await runThrough(prod).then((r) => [r.revision, r.message]), [2, 'two']);
    });

    it('a repeated Idempotency-Key starts nothing and names the run the first delivery started', async () => {
      const first = await runThrough(prod, { 'Idempotency-Key': 'delivery-1' });
      const again = await env.t.request.post(prod).set('Idempotency-Key', 'delivery-1').send({ n: 1 });
      assert.equal(again.status, 200, JSON.stringify(again.body));
      assert.deepEqual(again.body, { accepted: true, executionId: first.executionId, deduplicated: true });
    });

    it('rotation: deactivate then activate mints a new URL; the old one answers 404', async () => {
      await org.auth(env.t.request.post(alias('prod', '/deactivate'))).expect(200);
      const rotated = urlOf((await org.auth(env.t.request.post(alias('prod', '/activate'))).expect(200)).body.alias.triggers);
      assert.notEqual(rotated, prod);
      assert.equal((await env.t.request.post(prod).send({})).status, 404);
      assert.deepEqual(await runThrough(rotated).then((r) => [r.revision, r.message]), [2, 'two']);
    });

    it('a revision without that webhook step retires its token; the renamed step gets a URL of its own', async () => {
      const third = await put(hooked('three', 'inbound'));
      assert.equal(third.body.mode, 'new-revision');
      assert.equal((await env.t.request.post(latest).send({})).status, 404);
      const inbound = urlOf(third.body.triggers, 'inbound');
      assert.notEqual(inbound, latest);
      assert.deepEqual(await runThrough(inbound).then((r) => [r.revision, r.message]), [3, 'three']);
    });
  });

  it('signals the execution of its own workflow waiting on the correlation key read from the payload', async () => {
    // start ─▶ approval (waits on "approved" / ticket:<n>)      hook (webhook, mode: signal)
    const waiting = (name: string) => ({
      name,
      steps: [
        trigger(),
        {
          id: 'approval',
          type: 'wait',
          pluginType: 'signal-wait',
          config: { signalName: 'approved', correlationKey: 'ticket:${{ workflow.inputs.ticket }}' },
          dependsOn: ['start'],
        },
      ],
      outputs: { by: '${{ steps.approval.outputs.payload.body.user }}' },
    });
    const own = waiting('Approvals');
    own.steps.push({
      id: 'hook',
      type: 'trigger',
      pluginType: 'webhook',
      config: { mode: 'signal', signalName: 'approved', correlationKeyPath: 'body.ticket' },
    });
    const hookId = await publish(env, org, own);
    const otherId = await publish(env, org, waiting('Elsewhere'));
    const path = await activate(hookId);

    assert.equal((await env.t.request.post(path).send({ ticket: 'ticket:7', user: 'ada' })).status, 409, 'nobody waits yet');
    // Another workflow's execution waits on the same signal name and key: the webhook is not its entry point.
    const other = await org.auth(env.t.request.post(`/workflows/definitions/${otherId}/execute`)).send({ inputs: { ticket: 7 } });
    await waitFor(env, org, other.body.executionId as string, (body) => body.status === 'waiting');
    await new Promise((resolve) => setTimeout(resolve, 500)); // its wait row is flushed just after the wait starts
    assert.equal(
      (await env.t.request.post(path).send({ ticket: 'ticket:7', user: 'mallory' })).status,
      409,
      'other workflows are not reached',
    );

    const started = await org.auth(env.t.request.post(`/workflows/definitions/${hookId}/execute`)).send({ inputs: { ticket: 7 } });
    assert.equal(started.status, 202);
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    for (let i = 0; i < 100; i++) {
      const res = await env.t.request.post(path).send({ ticket: 'ticket:7', user: 'ada' });
      if (res.status === 202) break;
      assert.equal(res.status, 409);
      await new Promise((resolve) => setTimeout(resolve, 50)); // the wait row is flushed just after the wait starts
    }
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { by: 'ada' });
    const stillWaiting = await org.auth(env.t.request.get(`/workflows/executions/${other.body.executionId as string}`));
    assert.equal(stillWaiting.body.status, 'waiting');
    await org.auth(env.t.request.post(`/workflows/executions/${other.body.executionId as string}/terminate`)).send({});
  });

  it('releases a webhook-wait step with a request to its one-time callback URL', async () => {
    await publish(env, org, {
      name: 'Callback',
      key: 'callback',
      steps: [trigger(), { id: 'callback', type: 'module', pluginType: 'webhook-wait', config: { timeout: '1h' }, dependsOn: ['start'] }],
      outputs: { status: '${{ steps.callback.outputs.body.status }}', via: '${{ steps.callback.outputs.waitUrl }}' },
    });
    const started = await org.auth(env.t.request.post('/workflows/definitions/callback/execute')).send({});
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    let pending: { data?: Array<{ callbackUrl?: string }> } = {};
    for (let i = 0; i < 100 && !pending.data?.[0]?.callbackUrl; i++) {
      pending = (await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`))).body;
      if (!pending.data?.[0]?.callbackUrl) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const callbackUrl = pending.data?.[0]?.callbackUrl;
    // A nonce the workflow picked, then a MAC only the API can compute (see webhook-security.test.ts).
    assert.match(
      String(callbackUrl),
      new RegExp(`^http://api\\.test/workflows/webhooks/callback/${id}/[0-9a-f]{64}$`),
      JSON.stringify(pending),
    );
    const path = new URL(String(callbackUrl)).pathname;

    assert.equal(
      (await env.t.request.post(`/workflows/webhooks/callback/${id}/${'0'.repeat(64)}`).send({})).status,
      404,
      'a guessed token does nothing',
    );
    const delivered = await env.t.request.post(path).send({ status: 'approved' });
    assert.equal(delivered.status, 202, JSON.stringify(delivered.body));
    assert.equal((await env.t.request.post(path).send({ status: 'again' })).status, 404, 'the URL works once');

    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { status: 'approved', via: callbackUrl });
  });
});
