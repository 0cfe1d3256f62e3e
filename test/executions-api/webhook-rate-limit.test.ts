import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { useExecEnv } from './support';

/** Anonymous webhook ingress is rate-limited per token, before anything is looked up. */
describe('executions API: webhook rate limit', function () {
  this.timeout(60_000);
  const { x } = useExecEnv({ withWorker: false, limits: { webhookRequestsPerMinute: 1, webhookBurst: 2 } });

  it('answers 429 with Retry-After once a token has spent its burst; other tokens are unaffected', async () => {
    const token = 'rate0123456789abcdef0123456789ab';
    assert.equal((await x.t.request.post(`/workflows/webhooks/${token}`).send({})).status, 404);
    assert.equal((await x.t.request.post(`/workflows/webhooks/${token}`).send({})).status, 404);
    const limited = await x.t.request.post(`/workflows/webhooks/${token}`).send({});
    assertDialect('problem', limited, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1, limited.headers['retry-after']);
    assert.match(limited.body.detail, /WEBHOOK_REQUESTS_PER_MINUTE/);
    assert.equal((await x.t.request.post('/workflows/webhooks/another0123456789abcdef01234567').send({})).status, 404);
    const callback = `/workflows/webhooks/callback/exec_x/${'c'.repeat(64)}`;
    await x.t.request.post(callback).send({});
    await x.t.request.post(callback).send({});
    assertDialect('problem', await x.t.request.post(callback).send({}), 429);
  });
});
