/**
 * Declared input names and types that would reach Object.prototype (`__proto__`,
 * `constructor`, `prototype`, `toString`…) are refused at publish with a precise
 * error, never a 500 at execute; and `__proto__` keys in inputs are plain data.
 */
import assert from 'node:assert/strict';
import { checkInputs } from '../../workflows/engine';
import { trigger } from '../support/definitions';
import { assertDialect } from '../support/dialects';
import { publish, useExecEnv } from './support';

describe('executions API: input declarations', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  const withInputs = (inputs: Record<string, unknown>) => ({
    name: 'Inputs',
    steps: [trigger('start', 'manual', { inputs }), { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['start'] }],
  });

  for (const type of ['__proto__', 'constructor', 'prototype', 'toString']) {
    it(`refuses an input of type "${type}" at publish`, async () => {
      const res = await org.auth(env.t.request.post('/workflows/definitions')).send(withInputs({ who: { type } }));
      assertDialect('problem', res, 400);
      assert.deepEqual(
        res.body.errors.filter((e: { path: string }) => e.path.includes('inputs')),
        [
          {
            path: '/steps/0/config/inputs/who/type',
            message: `input type "${type}" is reserved (every JavaScript object has a property of that name)`,
          },
        ],
      );
    });
  }

  it('refuses reserved input names, definition-level declarations and payload schema types', async () => {
    const named = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send(
        JSON.parse(
          '{"name":"N","steps":[{"id":"start","type":"trigger","pluginType":"manual","config":{"inputs":{"__proto__":{"type":"string"}}}}]}',
        ),
      );
    assertDialect('problem', named, 400);
    assert.ok(
      named.body.errors.some((e: { path: string }) => e.path === '/steps/0/config/inputs/__proto__'),
      JSON.stringify(named.body),
    );

    const top = await org
      .auth(env.t.request.post('/workflows/definitions'))
      .send({ ...withInputs({}), inputs: { who: { type: 'constructor' } } });
    assertDialect('problem', top, 400);
    assert.ok(
      top.body.errors.some((e: { path: string }) => e.path === '/inputs/who/type'),
      JSON.stringify(top.body),
    );

    const hook = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: 'Hook',
      steps: [
        {
          id: 'hook',
          type: 'trigger',
          pluginType: 'webhook',
          config: { payloadSchema: { type: 'object', properties: { a: { type: '__proto__' } } } },
        },
      ],
    });
    assertDialect('problem', hook, 400);
    assert.ok(
      hook.body.errors.some((e: { path: string }) => e.path === '/steps/0/config/payloadSchema/properties/a/type'),
      JSON.stringify(hook.body),
    );
  });

  it('checks execute inputs against own type names only, and keeps __proto__ keys as data', async () => {
    // A revision stored before publish refused such types must not answer 500 either.
    assert.deepEqual(checkInputs({ who: { type: '__proto__', required: true } }, { who: 'ada' }), []);

    const workflowId = await publish(env, org, withInputs({ who: { type: 'string' } }));
    const res = await org
      .auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`))
      .set('Content-Type', 'application/json')
      .send('{"inputs":{"who":"ada","__proto__":{"polluted":true}}}');
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});
