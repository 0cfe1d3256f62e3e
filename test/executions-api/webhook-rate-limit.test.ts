import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { signedHeaders } from '../support/webhook-signing';
import { publish, useExecEnv } from './support';

/**
 * Anonymous webhook ingress is rate-limited per token. A trigger's budget is
 * spent only by requests it accepts; refused ones (unknown token, unsigned or
 * wrongly signed) spend a budget of their own.
 */
describe('executions API: webhook rate limit', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ withWorker: false, limits: { webhookRequestsPerMinute: 1, webhookBurst: 2 } });

  /** Publishes and activates a workflow with a webhook trigger; returns the trigger's path. */
  async function hook(config: Record<string, unknown>): Promise<string> {
    const workflowId = await publish(env, org, {
      name: 'Hook',
      steps: [
        { id: 'hook', type: 'trigger', pluginType: 'webhook', config },
        { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['hook'] },
      ],
    });
    const res = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    return new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
  }

  it('answers 429 with Retry-After once a token has spent its burst; other tokens are unaffected', async () => {
    const token = 'rate0123456789abcdef0123456789ab';
    assert.equal((await env.t.request.post(`/workflows/webhooks/${token}`).send({})).status, 404);
    assert.equal((await env.t.request.post(`/workflows/webhooks/${token}`).send({})).status, 404);
    const limited = await env.t.request.post(`/workflows/webhooks/${token}`).send({});
    assertDialect('problem', limited, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1, limited.headers['retry-after']);
    assert.match(limited.body.detail, /WEBHOOK_REQUESTS_PER_MINUTE/);
    assert.equal((await env.t.request.post('/workflows/webhooks/another0123456789abcdef01234567').send({})).status, 404);
    const callback = `/workflows/webhooks/callback/exec_x/${'c'.repeat(64)}`;
    await env.t.request.post(callback).send({});
    await env.t.request.post(callback).send({});
    assertDialect('problem', await env.t.request.post(callback).send({}), 429);
  });

  it("keeps a signed trigger's budget for its signed sender: unsigned and wrongly signed requests spend their own", async () => {
    const secret = 'hook-secret-value';
    const path = await hook({ mode: 'start', secret });
    const body = JSON.stringify({ event: 'push' });
    const post = (headers: Record<string, string>, sent = body, to = path) =>
      env.t.request.post(to).set('Content-Type', 'application/json').set(headers).send(sent);

    // A flood of strangers' requests, well beyond the burst of 2: refused, then limited.
    const flood = [];
    for (let i = 0; i < 4; i++) flood.push((await post({})).status);
    for (let i = 0; i < 4; i++) flood.push((await post(signedHeaders(body, 'not-the-secret'))).status);
    assert.deepEqual(flood, [401, 401, 429, 429, 429, 429, 429, 429]);

    // The signed sender still has its whole burst, and only its own requests spend it.
    assert.equal((await post(signedHeaders(body, secret))).status, 202);
    const again = JSON.stringify({ event: 'again' });
    assert.equal((await post(signedHeaders(again, secret), again)).status, 202);
    const third = JSON.stringify({ event: 'third' });
    const spent = await post(signedHeaders(third, secret), third);
    assertDialect('problem', spent, 429);
    assert.match(spent.body.detail, /at most 1 requests a minute/);
    const refused = await post({});
    assertDialect('problem', refused, 429);
    assert.match(refused.body.detail, /at most 1 refused requests a minute \(WEBHOOK_REQUESTS_PER_MINUTE\)/);

    // Each trigger has its own budgets: another signed webhook of the organization is untouched.
    const other = await hook({ mode: 'start', secret });
    const elsewhere = JSON.stringify({ event: 'elsewhere' });
    const res = await post(signedHeaders(elsewhere, secret), elsewhere, other);
    assert.equal(res.status, 202, JSON.stringify(res.body));
  });
});
