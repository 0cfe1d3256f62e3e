/**
 * Webhook ingress hardening: signatures over a timestamp with a 5-minute window
 * and replay refusal shared by every replica, GET/HEAD only when named, headers
 * that are never stored, and webhook-wait callback tokens the workflow cannot mint.
 */
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { executionRoutes } from '../../api/executions';
import { loadConfig } from '../../config/config';
import { createTestApp } from '../support/app';
import { trigger } from '../support/definitions';
import { assertDialect } from '../support/dialects';
import { signedHeaders } from '../support/webhook-signing';
import { countExecutions, finished, publish, useExecEnv, waitFor, type ExecEnv } from './support';

const SECRET = 'hook-secret-value';
const SENSITIVE = {
  Authorization: 'Bearer sensitive-1',
  'Proxy-Authorization': 'Basic sensitive-2',
  Cookie: 'session=sensitive-3',
  'Set-Cookie': 'session=sensitive-4',
  'X-Api-Key': 'sensitive-5',
  'X-Gitlab-Token': 'sensitive-6',
  'Stripe-Signature': 't=1700000000,v1=sensitive-7',
  'X-Auth-Token': 'sensitive-8',
  'X-Csrf-Token': 'sensitive-9',
  'X-Xsrf-Token': 'sensitive-10',
  'X-Amz-Security-Token': 'sensitive-11',
  'X-Hub-Signature': 'sha1=sensitive-12',
  'X-Slack-Signature': 'v0=sensitive-13',
};

/** Another API replica on the same database and Temporal (with its own key when given). */
function replica(env: ExecEnv, encryptionKey = env.encryptionKey) {
  const config = { ...loadConfig(), publicBaseUrl: 'http://api.test', temporalTaskQueue: env.taskQueue };
  return createTestApp({ routes: executionRoutes({ config, dataSource: env.db, temporal: env.temporal.client, encryptionKey }) });
}

/** Every string and payload byte of a history, as text. */
function historyText(value: unknown): string {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(historyText).join('\n');
  if (typeof value === 'object' && value !== null) return Object.values(value).map(historyText).join('\n');
  return '';
}

describe('executions API: webhook security', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  async function hook(config: Record<string, unknown>): Promise<{ workflowId: string; path: string }> {
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
    const url = aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string;
    return { workflowId, path: new URL(url).pathname };
  }

  const runsOf = async (workflowId: string) =>
    (await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`))).body.data as Array<{ id: string }>;

  it('accepts a signature over timestamp and body once, within 5 minutes, on any replica', async () => {
    const { workflowId, path } = await hook({ mode: 'start', method: 'POST', secret: SECRET });
    const body = JSON.stringify({ event: 'push' });
    const post = (headers: Record<string, string>, app = env.t) =>
      app.request.post(path).set('Content-Type', 'application/json').set(headers).send(body);
    const now = Math.floor(Date.now() / 1000);

    const bodyOnly = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    assertDialect('problem', await post({ 'X-Webhook-Signature': bodyOnly }), 401);
    assertDialect('problem', await post({ 'X-Webhook-Signature': bodyOnly, 'X-Webhook-Timestamp': String(now) }), 401);
    assertDialect('problem', await post({ 'X-Hub-Signature-256': bodyOnly }), 401);
    assertDialect('problem', await post(signedHeaders(body, SECRET, now - 301)), 401);
    // Read the clock again: the requests above may have taken seconds on a loaded machine.
    const later = Math.floor(Date.now() / 1000);
    assertDialect('problem', await post(signedHeaders(body, SECRET, later + 305)), 401);
    assertDialect('problem', await post(signedHeaders(`${body} `, SECRET, now)), 401);
    assert.equal(await countExecutions(env.db, org.id), 0, 'nothing started by refused requests');

    const signed = signedHeaders(body, SECRET, now - 240);
    assert.equal((await post(signed)).status, 202);
    assertDialect('problem', await post(signed), 409);
    assertDialect('problem', await post(signed, replica(env)), 409);
    assert.equal((await runsOf(workflowId)).length, 1, 'a replay starts nothing');
    const second = await post(signedHeaders(body, SECRET, now - 239));
    assert.equal(second.status, 202, 'a new timestamp is a new request');

    // Only digests are kept, never the signature, and rows past their window are pruned.
    const given = signed['X-Webhook-Signature'].slice('sha256='.length);
    const rows = await env.db.query<Array<{ digest: string }>>(`SELECT digest FROM webhook_replays WHERE digest = $1 OR digest = $2`, [
      given,
      createHash('sha256').update(given).digest('hex'),
    ]);
    assert.deepEqual(
      rows.map((row) => row.digest),
      [createHash('sha256').update(given).digest('hex')],
    );
    await env.db.query(`INSERT INTO webhook_replays (digest, expires_at) VALUES ($1, now() - interval '1 second')`, [`stale-${org.id}`]);
    assert.equal((await post(signedHeaders(body, SECRET, now - 238))).status, 202);
    const [stale] = await env.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM webhook_replays WHERE digest = $1`, [
      `stale-${org.id}`,
    ]);
    assert.equal(stale.n, 0);
  });

  it('starts one run per Idempotency-Key, on any replica; another key starts another; an over-long key is refused', async () => {
    const { workflowId, path } = await hook({ mode: 'start' });
    const send = (key: string, app = env.t) => app.request.post(path).set('Idempotency-Key', key).send({ n: 1 });
    const first = await send('delivery-1');
    assert.equal(first.status, 202);
    const again = await send('delivery-1', replica(env));
    assert.equal(again.status, 200);
    // The repeat names the run the first delivery started.
    assert.deepEqual(again.body, { accepted: true, executionId: first.body.executionId, deduplicated: true });
    assert.equal((await runsOf(workflowId)).length, 1, 'a retried delivery starts nothing');
    assert.equal((await send('delivery-2')).status, 202);
    assert.equal((await runsOf(workflowId)).length, 2);
    assertDialect('problem', await send('k'.repeat(201)), 400);
    assert.equal((await runsOf(workflowId)).length, 2, 'an over-long key starts nothing');
  });

  it('starts runs on GET or HEAD only when the trigger names them (ANY does not)', async () => {
    const any = await hook({ mode: 'start' });
    for (const request of [env.t.request.get(any.path), env.t.request.head(any.path)]) {
      const res = await request;
      assert.equal(res.status, 405);
      assert.equal(res.headers.allow, 'POST, PUT, PATCH, DELETE');
    }
    assert.equal((await env.t.request.post(any.path).send({})).status, 202);
    assert.equal((await runsOf(any.workflowId)).length, 1);

    const explicitAny = await hook({ mode: 'start', method: 'ANY' });
    assert.equal((await env.t.request.get(explicitAny.path)).status, 405);

    const get = await hook({ mode: 'start', methods: ['GET'] });
    assert.equal((await env.t.request.head(get.path)).status, 405, 'HEAD is its own verb');
    assert.equal((await env.t.request.post(get.path).send({})).status, 405);
    assert.equal((await env.t.request.get(`${get.path}?ping=1`)).status, 202);
    assert.equal((await env.t.request.head((await hook({ method: 'HEAD' })).path)).status, 202);
    assert.equal((await runsOf(get.workflowId)).length, 1);
  });

  it('never stores credential or signing headers in the trigger payload', async () => {
    const { workflowId, path } = await hook({ mode: 'start', secret: SECRET, keepHeaders: ['X-Kept'] });
    const body = JSON.stringify({ ok: true });
    const res = await env.t.request
      .post(path)
      .set('Content-Type', 'application/json')
      .set(SENSITIVE)
      .set(signedHeaders(body, SECRET))
      .set('X-Kept', 'visible')
      .send(body);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const [run] = await runsOf(workflowId);
    const done = await waitFor(env, org, run.id, finished);
    const headers = (done.trigger as { payload: { headers: Record<string, string> } }).payload.headers;
    assert.equal(headers['x-kept'], 'visible');
    for (const name of [...Object.keys(SENSITIVE), 'X-Webhook-Signature', 'X-Webhook-Timestamp']) {
      assert.equal(headers[name.toLowerCase()], undefined, name);
    }
    const [row] = await env.db.query<Array<{ text: string }>>(
      `SELECT (inputs::text || trigger::text) AS text FROM executions WHERE id = $1`,
      [run.id],
    );
    assert.doesNotMatch(row.text, /sensitive-|sha256=/);
  });

  it('keeps only allowlisted headers (and those the trigger names), and no credential-named header or query parameter', async () => {
    const credentials: Record<string, string> = {
      ...SENSITIVE,
      'X-Vault-Token': 'sensitive-v1',
      'Private-Token': 'sensitive-v2',
      'X-Access-Token': 'sensitive-v3',
      'Api-Key': 'sensitive-v4',
      'Ocp-Apim-Subscription-Key': 'sensitive-v5',
      'X-Goog-Api-Key': 'sensitive-v6',
      'DD-API-KEY': 'sensitive-v7',
      'X-Shopify-Hmac-Sha256': 'sensitive-v8',
      'X-Refresh-Token': 'sensitive-v9',
      'X-Client-Secret': 'sensitive-v10',
      'X-Session-Id': 'sensitive-v11',
      'X-Password': 'sensitive-v12',
    };
    assert.ok(Object.keys(credentials).length >= 22);
    const { workflowId, path } = await hook({ mode: 'start', keepHeaders: ['X-Kept', 'X-Vault-Token', 'Authorization'] });
    const query =
      '?token=sensitive-q1&api_key=sensitive-q2&apiKey=sensitive-q3&sig=sensitive-q4&access_token=sensitive-q5&page=2&monkey=ok';
    const res = await env.t.request
      .post(`${path}${query}`)
      .set(credentials)
      .set({ 'Content-Type': 'application/json', 'User-Agent': 'sender/1.0', 'X-Kept': 'visible', 'X-Other': 'dropped' })
      .send({ ok: true });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const [run] = await runsOf(workflowId);
    const done = await waitFor(env, org, run.id, finished);
    const payload = (done.trigger as { payload: { headers: Record<string, string>; query: Record<string, string> } }).payload;
    assert.deepEqual(
      Object.keys(payload.headers).sort(),
      ['content-type', 'user-agent', 'x-kept'],
      `kept headers: ${JSON.stringify(payload.headers)}`,
    );
    assert.deepEqual(payload.query, { page: '2', monkey: 'ok' });
    const [row] = await env.db.query<Array<{ text: string }>>(
      `SELECT (inputs::text || trigger::text) AS text FROM executions WHERE id = $1`,
      [run.id],
    );
    assert.doesNotMatch(row.text, /sensitive-/);
  });

  it('mints callback tokens the workflow cannot know, refuses forged ones and stores no credentials', async () => {
    await publish(env, org, {
      name: 'Callback',
      key: 'secure-callback',
      steps: [trigger(), { id: 'callback', type: 'module', pluginType: 'webhook-wait', config: { timeout: '1h' }, dependsOn: ['start'] }],
      outputs: { headers: '${{ steps.callback.outputs.headers }}', via: '${{ steps.callback.outputs.waitUrl }}' },
    });
    const started = await org.auth(env.t.request.post('/workflows/definitions/secure-callback/execute')).send({});
    const id = started.body.executionId as string;
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const callbackUrl = async (app = env.t) => {
      const token = await app.token({ organizationId: org.id, userId: org.userId });
      for (let i = 0; i < 100; i++) {
        const pending = await app.request.get(`/workflows/executions/${id}/pending-signals`).set('Authorization', `Bearer ${token}`);
        const url = (pending.body.data as Array<{ callbackUrl?: string }> | undefined)?.[0]?.callbackUrl;
        if (url) return new URL(url).pathname;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no callback URL');
    };
    const path = await callbackUrl();
    const token = path.split('/').pop() ?? '';
    const nonce = token.slice(0, 32);

    // Nothing the workflow holds (its history, seeded random source included) contains the token's MAC.
    const history = historyText(await env.temporal.client.workflow.getHandle(id).fetchHistory());
    assert.ok(history.includes(id), 'the history is readable');
    assert.ok(!history.includes(token.slice(32)), 'the MAC is not in it');

    const base = `/workflows/webhooks/callback/${id}`;
    // A replica with another server key computes another token, and this server refuses it.
    const otherToken = (await callbackUrl(replica(env, randomBytes(32)))).split('/').pop() ?? '';
    assert.notEqual(otherToken, token);
    assert.equal((await env.t.request.post(`${base}/${otherToken}`).send({})).status, 404);
    assert.equal((await env.t.request.post(`${base}/${nonce}`).send({})).status, 404, 'the nonce alone');
    assert.equal((await env.t.request.post(`${base}/${nonce}${'0'.repeat(32)}`).send({})).status, 404, 'a forged MAC');
    assertDialect('problem', await env.t.request.post(`/workflows/webhooks/callback/exec_other/${token}`).send({}), 404);

    // A callback keeps the default headers only (webhook-request.ts): X-Correlation-Id is one of them.
    const delivered = await env.t.request.post(path).set(SENSITIVE).set('X-Correlation-Id', 'visible').send({ status: 'approved' });
    assert.equal(delivered.status, 202, JSON.stringify(delivered.body));
    const done = await waitFor(env, org, id, finished);
    const outputs = done.outputs as { headers: Record<string, string>; via: string };
    assert.equal(outputs.headers['x-correlation-id'], 'visible');
    for (const name of Object.keys(SENSITIVE)) assert.equal(outputs.headers[name.toLowerCase()], undefined, name);
    assert.doesNotMatch(JSON.stringify(outputs), /sensitive-/);
    assert.equal(new URL(outputs.via).pathname, path);
  });
});
