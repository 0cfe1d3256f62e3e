/**
 * Request bodies nested deeper than BODY_MAX_DEPTH answer 400 in the route family's
 * dialect, naming the JSON pointer where the limit was crossed, on every route that
 * takes JSON from outside: publish (POST and PUT), validate, execute inputs, signals,
 * the anonymous webhook, webhook-wait callbacks, config entries and service
 * specifications. A body at the limit is accepted; no body of any depth answers 500.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Test } from 'supertest';
import { adminRoutes } from '../../api/admin';
import { DEFAULT_LIMITS } from '../../config/limits';
import { newOrg } from '../admin/support';
import { createTestApp, type TestApp } from '../support/app';
import { trigger } from '../support/definitions';
import { assertDialect, type Family } from '../support/dialects';
import { execute, publish, useExecEnv, waitFor } from './support';

const LIMIT = DEFAULT_LIMITS.maxBodyDepth;
const DEEP = 5000;

/** JSON text of `{"a":{"a":…{}}}`, `levels` objects deep (built as text: JSON.stringify would overflow). */
const nested = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}`;
/** A body whose `field` holds a value nested so that the whole body is `levels` deep. */
const bodyWith = (fields: Record<string, unknown>, field: string, levels: number): string =>
  `${JSON.stringify(fields).slice(0, -1)}${Object.keys(fields).length > 0 ? ',' : ''}"${field}":${nested(levels - 1)}}`;
/** The pointer the 400 names for a deep value under `field`: the first object past the limit. */
const pastLimit = (field: string): string => `/${field}${'/a'.repeat(LIMIT - 1)}`;

const asJson = (req: Test, text: string): Test => req.set('Content-Type', 'application/json').send(text);

describe('request bodies: the nesting limit', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  /** Asserts a 400 in the family's dialect naming where the limit was crossed. */
  function assertTooDeep(family: Family, res: Awaited<Test>, pointer: string): void {
    assertDialect(family, res, 400);
    const text = family === 'problem' ? (res.body.detail as string) : (res.body.message as string);
    assert.ok(text.includes(`nested deeper than ${LIMIT} levels at "${pointer}"`), text);
    if (family === 'problem') {
      assert.match(res.body.type, /\/body-too-deep$/);
      assert.deepEqual(res.body.errors, [{ path: pointer, message: `is nested deeper than ${LIMIT} levels (BODY_MAX_DEPTH)` }]);
    }
  }

  const definition = (key: string) => ({
    name: 'Deep',
    key,
    steps: [
      trigger(),
      { id: 'wait', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1h' }, dependsOn: ['start'] },
    ],
  });

  it('publish, validate and execute: 400 with the pointer past the limit; a body at the limit is accepted', async () => {
    const fields = definition('deep-publish');
    for (const [method, path] of [
      ['post', '/workflows/definitions'],
      ['put', '/workflows/definitions/deep-publish'],
      ['post', '/workflows/definitions/validate'],
    ] as const) {
      const res = await asJson(org.auth(env.t.request[method](path)), bodyWith(fields, 'metadata', DEEP));
      assertTooDeep('problem', res, pastLimit('metadata'));
    }
    const published = await asJson(org.auth(env.t.request.post('/workflows/definitions')), bodyWith(fields, 'metadata', LIMIT));
    assert.equal(published.status, 201, published.text);
    const validated = await asJson(org.auth(env.t.request.post('/workflows/definitions/validate')), bodyWith(fields, 'metadata', LIMIT));
    assert.equal(validated.status, 200, validated.text);

    const executeAt = (levels: number) =>
      asJson(org.auth(env.t.request.post('/workflows/definitions/deep-publish/execute')), bodyWith({}, 'inputs', levels));
    assertTooDeep('problem', await executeAt(DEEP), pastLimit('inputs'));
    const started = await executeAt(LIMIT);
    assert.equal(started.status, 202, started.text);
  });

  it('YAML bodies too: a deep document and one that contains itself (an alias inside its own anchor) answer 400', async () => {
    const yaml = (text: string) =>
      org.auth(env.t.request.post('/workflows/definitions/validate')).set('Content-Type', 'application/yaml').send(text);
    const deep = await yaml(`name: Deep\nmetadata: ${'['.repeat(DEEP)}${']'.repeat(DEEP)}\n`);
    assertDialect('problem', deep, 400);
    const looped = await yaml('name: Looped\nmetadata: &loop\n  self: *loop\n');
    assertTooDeep('problem', looped, `/metadata${'/self'.repeat(LIMIT - 1)}`);
  });

  it('signals and webhook-wait callbacks: 400 past the limit; a payload at the limit releases the wait', async () => {
    await publish(env, org, definition('deep-signal'));
    const id = await execute(env, org, 'deep-signal');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const signal = (levels: number) =>
      asJson(org.auth(env.t.request.post(`/workflows/executions/${id}/signals/go`)), bodyWith({}, 'p', levels));
    assertTooDeep('problem', await signal(DEEP), pastLimit('p'));
    const delivered = await signal(LIMIT);
    assert.equal(delivered.status, 200, delivered.text);

    await publish(env, org, {
      name: 'Deep callback',
      key: 'deep-callback',
      steps: [trigger(), { id: 'callback', type: 'module', pluginType: 'webhook-wait', config: { timeout: '1h' }, dependsOn: ['start'] }],
    });
    const waiting = await execute(env, org, 'deep-callback');
    let callback: string | undefined;
    for (let i = 0; i < 200 && !callback; i++) {
      const pending = await org.auth(env.t.request.get(`/workflows/executions/${waiting}/pending-signals`));
      callback = (pending.body.data as Array<{ callbackUrl?: string }> | undefined)?.[0]?.callbackUrl;
      if (!callback) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(callback, 'the callback URL is shown');
    const path = new URL(callback).pathname;
    assertTooDeep('problem', await asJson(env.t.request.post(path), bodyWith({}, 'p', DEEP)), pastLimit('p'));
    const released = await asJson(env.t.request.post(path), bodyWith({}, 'p', LIMIT));
    assert.equal(released.status, 202, released.text);
  });

  it('the anonymous webhook: 400 past the limit; a body at the limit starts a run', async () => {
    const workflowId = await publish(env, org, {
      name: 'Deep hook',
      steps: [
        { id: 'hook', type: 'trigger', pluginType: 'webhook', config: {} },
        { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['hook'] },
      ],
    });
    const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, activated.text);
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const path = new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
    assertTooDeep('problem', await asJson(env.t.request.post(path), nested(DEEP)), '/a'.repeat(LIMIT));
    const accepted = await asJson(env.t.request.post(path), nested(LIMIT));
    assert.equal(accepted.status, 202, accepted.text);
  });

  it('config entries and service specifications answer in their own dialects', async () => {
    const res = await asJson(org.auth(env.t.request.post('/workflows/config')), bodyWith({ name: 'DEEP', path: '/' }, 'value', DEEP));
    assertTooDeep('config', res, pastLimit('value'));

    const admin: TestApp = createTestApp({ routes: adminRoutes({ dataSource: env.db }) });
    const adminOrg = await newOrg({ t: admin, db: env.db });
    // The values of a specification's attributes: free JSON, two levels inside the body.
    const spec = (levels: number) =>
      asJson(
        admin.request.post('/service_specification').set('Authorization', `Bearer ${adminOrg.admin}`),
        `{"name":"Deep spec","visible_to":["organization=${adminOrg.id}"],"attributes":{"schema":{"type":"object"},"values":${nested(levels - 2)}}}`,
      );
    assertTooDeep('admin', await spec(DEEP), `/attributes/values${'/a'.repeat(LIMIT - 2)}`);
    const created = await spec(LIMIT);
    assert.equal(created.status, 201, created.text);
  });

  it('no body of any depth answers 500 (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 3 * LIMIT }), fc.constantFrom('{"a":', '[', '{"~/":'), async (levels, open) => {
        const close = open === '[' ? ']' : '}';
        const text = `${open.repeat(levels - 1)}${open === '[' ? '[]' : '{}'}${close.repeat(levels - 1)}`;
        const res = await asJson(org.auth(env.t.request.post('/workflows/definitions/validate')), text);
        assert.notEqual(res.status, 500, res.text);
        assert.equal(res.status === 400 && /body-too-deep$/.test(res.body.type as string), levels > LIMIT, `${levels} levels: ${res.text}`);
        if (levels > LIMIT) assert.equal(res.body.errors[0].path, (open === '[' ? '/0' : open === '{"a":' ? '/a' : '/~0~1').repeat(LIMIT));
      }),
      { numRuns: 40 },
    );
  });
});
