/**
 * Keys a definition may carry that need the API or a run to show their effect
 * (issue 18 §1; the table in test/engine/accepted-keys.ts points here):
 * input JSON Schemas at execute, the webhook payloadSchema at ingress,
 * declared secrets at start, a step loop through the real worker, and the
 * publish warnings for keys that have no effect here.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { trigger } from '../support/definitions';
import { assertDialect } from '../support/dialects';
import { finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: accepted keys take effect', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  it('checks execute inputs against the JSON Schemas of the top-level inputs map and the manual trigger (400 naming the failing paths)', async () => {
    const workflowId = await publish(env, org, {
      name: 'Schemas',
      inputs: {
        ticket: {
          type: 'object',
          required: true,
          schema: { type: 'object', required: ['id'], properties: { id: { pattern: '^T-[0-9]+$' } } },
        },
      },
      steps: [
        trigger('start', 'manual', { inputs: { count: { type: 'integer', schema: { minimum: 1, maximum: 10 } } } }),
        { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['start'] },
      ],
    });
    const missing = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({ inputs: {} });
    assertDialect('problem', missing, 400);
    assert.deepEqual(missing.body.errors, [{ path: '/inputs/ticket', message: 'is required' }]);

    const wrong = await org
      .auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`))
      .send({ inputs: { ticket: { id: 'X-1' }, count: 11 } });
    assertDialect('problem', wrong, 400);
    assert.deepEqual(
      wrong.body.errors.map((e: { path: string }) => e.path),
      ['/inputs/ticket/id', '/inputs/count'],
    );
    const good = await org
      .auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`))
      .send({ inputs: { ticket: { id: 'T-7' }, count: 3 } });
    assert.equal(good.status, 202, JSON.stringify(good.body));
  });

  it('refuses at publish an input schema or payloadSchema that would not compile safely', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: 'Unsafe',
      inputs: { who: { type: 'string', schema: { type: 'string', pattern: '(a+)+\\1' } } },
      steps: [{ id: 'hook', type: 'trigger', pluginType: 'webhook', config: { payload_schema: { $ref: 'https://example.com/s.json' } } }],
    });
    assertDialect('problem', res, 400);
    assert.deepEqual(
      res.body.errors.map((e: { path: string }) => e.path),
      ['/inputs/who/schema', '/steps/0/config/payload_schema'],
    );
  });

  it('answers 422 at webhook ingress with the failing paths when the body does not match payloadSchema, and starts nothing', async () => {
    const workflowId = await publish(env, org, {
      name: 'Typed hook',
      steps: [
        {
          id: 'hook',
          type: 'trigger',
          pluginType: 'webhook',
          config: { method: 'POST', payloadSchema: { type: 'object', required: ['event'], properties: { event: { enum: ['push'] } } } },
        },
        { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['hook'] },
      ],
    });
    const on = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const url = on.body.alias.triggerStates.hook.runtimeMetadata.webhookUrl as string;
    const path = new URL(url).pathname;

    const bad = await env.t.request.post(path).send({ event: 'pull', extra: 1 });
    assertDialect('problem', bad, 422);
    assert.deepEqual(bad.body.errors, [{ path: '/body/event', message: 'must be one of "push"' }]);
    const none = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`));
    assert.equal(none.body.data.length, 0);

    const good = await env.t.request.post(path).send({ event: 'push' });
    assert.equal(good.status, 202, JSON.stringify(good.body));
  });

  it('fails the start with SECRET_UNRESOLVED before any step when a declared secret has no value', async () => {
    const workflowId = await publish(env, org, {
      name: 'Needs a token',
      secrets: { DEPLOY_TOKEN: {} },
      steps: [trigger(), { id: 'n', type: 'module', pluginType: 'log', config: { message: 'ran' }, dependsOn: ['start'] }],
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const run = await waitFor(env, org, started.body.executionId, finished);
    assert.equal(run.status, 'failed');
    assert.equal((run.error as { type?: string }).type, 'SECRET_UNRESOLVED', JSON.stringify(run.error));
    const steps = await org.auth(env.t.request.get(`/workflows/executions/${started.body.executionId}/steps`));
    assert.deepEqual(
      (steps.body.data as Array<{ stepId: string; status: string }>).filter((s) => s.stepId === 'n' && s.status !== 'skipped'),
      [],
    );

    await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'DEPLOY_TOKEN', value: 'tok-1234', secret: true, path: '/' })
      .expect(201);
    const again = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const done = await waitFor(env, org, again.body.executionId, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
  });

  it('reads the bound config entry for secrets.NAME when the definition binds NAME to another entry', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      const workflowId = await publish(env, org, {
        name: 'Bound secret',
        secrets: { np_api_token: { key: 'NP_TOKEN_PROD' } },
        steps: [
          trigger(),
          {
            id: 'call',
            type: 'module',
            pluginType: 'http-request',
            config: { url, headers: { Authorization: 'Bearer ${{ secrets.np_api_token }}' } },
            dependsOn: ['start'],
          },
        ],
      });
      const missing = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
      const failed = await waitFor(env, org, missing.body.executionId, finished);
      assert.deepEqual([failed.status, (failed.error as { type?: string }).type], ['failed', 'SECRET_UNRESOLVED']);
      assert.match((failed.error as { message: string }).message, /NP_TOKEN_PROD/);

      await org
        .auth(env.t.request.post('/workflows/config'))
        .send({ name: 'NP_TOKEN_PROD', value: 'prod-token-5678', secret: true, path: '/' })
        .expect(201);
      const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
      const done = await waitFor(env, org, started.body.executionId, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(seen, ['Bearer prod-token-5678']);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('resolves vars and workflow inputs in a variable initialValue when the run starts on the worker', async () => {
    await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'REGION', value: 'eu-west', secret: false, path: '/' })
      .expect(201);
    const workflowId = await publish(env, org, {
      name: 'Seeded',
      variables: { target: { initialValue: { region: '${{ vars.REGION }}', who: '${{ workflow.inputs.who }}' } } },
      steps: [trigger(), { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['start'] }],
      outputs: { target: '${{ variables.target }}' },
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({ inputs: { who: 'ada' } });
    const run = await waitFor(env, org, started.body.executionId, finished);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.deepEqual(run.outputs, { target: { region: 'eu-west', who: 'ada' } });
  });

  it('times a signal-wait out by timeoutMs (the older spelling) on the worker', async () => {
    const workflowId = await publish(env, org, {
      name: 'Short wait',
      steps: [
        trigger(),
        { id: 'wait', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeoutMs: 300 }, dependsOn: ['start'] },
      ],
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const run = await waitFor(env, org, started.body.executionId, finished);
    assert.deepEqual([run.status, (run.error as { type?: string }).type], ['failed', 'SIGNAL_WAIT_TIMEOUT']);
  });

  it('runs a step loop (while) on the worker: the step repeats until its condition is false', async () => {
    const workflowId = await publish(env, org, {
      name: 'Looping',
      variables: { n: { initialValue: 0 } },
      steps: [
        trigger(),
        {
          id: 'bump',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'n', value: '${{ variables.n + 1 }}' },
          loop: { while: 'variables.n < 3' },
          dependsOn: ['start'],
        },
      ],
      outputs: { n: '${{ variables.n }}', count: '${{ steps.bump.outputs.count }}' },
    });
    const started = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
    const run = await waitFor(env, org, started.body.executionId, finished);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.deepEqual(run.outputs, { n: 3, count: 3 });
  });

  it('runs a step loop (forEach) on the worker: one run per element, named by itemName and indexName', async () => {
    const workflowId = await publish(env, org, {
      name: 'Each',
      variables: { seen: { initialValue: '' } },
      steps: [
        trigger(),
        {
          id: 'collect',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'seen', value: '${{ variables.seen + variables.ticket + variables.n }}' },
          loop: { forEach: 'workflow.inputs.tickets', itemName: 'ticket', indexName: 'n' },
          dependsOn: ['start'],
        },
      ],
      outputs: { seen: '${{ variables.seen }}', count: '${{ steps.collect.outputs.count }}' },
    });
    const started = await org
      .auth(env.t.request.post(`/workflows/definitions/${workflowId}/execute`))
      .send({ inputs: { tickets: ['a', 'b', 'c'] } });
    const run = await waitFor(env, org, started.body.executionId, finished);
    assert.equal(run.status, 'completed', JSON.stringify(run));
    assert.deepEqual(run.outputs, { seen: 'a0b1c2', count: 3 });
  });

  it('warns at publish (DEFINITION_KEY_IGNORED, naming the path) for a key that has no effect here', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: 'Warned',
      steps: [
        trigger(),
        {
          id: 'wait',
          type: 'module',
          pluginType: 'webhook-wait',
          config: { correlationKey: 'abc' },
          timeout: '5m',
          dependsOn: ['start'],
        },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.warnings.map((w: { code: string; path: string }) => `${w.code} ${w.path}`),
      ['DEFINITION_KEY_IGNORED /steps/1/timeout', 'DEFINITION_KEY_IGNORED /steps/1/config/correlationKey'],
    );
  });
});
