import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/**
 * Templates are code, everything else is data (DESIGN §3). A webhook body, a
 * signal payload, an http-request response and a code-exec result that carry
 * `${{ secrets.X }}` (and forms that would slip past the scrubber) flow
 * through http-request, code-exec and log steps as literal text; the secret X
 * they name is never decrypted. The definition's own secret Y still works.
 */
describe('executions API: data never becomes code', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let baseUrl: string;
  const received: Array<{ path: string; body: string; authorization?: string }> = [];
  const X = `x-canary-${randomBytes(12).toString('hex')}`;
  const Y = `y-legit-${randomBytes(12).toString('hex')}`;
  const BAIT = ['${{ secrets.X_KEY }}', "${{ secrets.X_KEY.split('').join(' ') }}", '${{ foo }}', 'a ${{ vars.NOPE }} b'];

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body, authorization: req.headers.authorization });
        res.setHeader('content-type', 'application/json');
        // The response body is the attacker's: templates in it must stay text in later steps.
        res.end(JSON.stringify(req.url === '/bait' ? { bait: BAIT } : { ok: true }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const [name, value] of [
      ['X_KEY', X],
      ['Y_KEY', Y],
    ]) {
      const created = await org.auth(env.t.request.post('/workflows/config')).send({ name, value, secret: true, path: '/' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
    }
  });
  after(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  });

  /** The steps every scenario runs on `data` (a template that yields attacker data): send it, run code on it, log it. */
  const consumers = (data: string) => ({
    send: {
      type: 'module',
      pluginType: 'http-request',
      config: { url: `${baseUrl}/echo`, method: 'POST', headers: { authorization: 'Bearer ${{ secrets.Y_KEY }}' }, body: { data } },
    },
    code: {
      type: 'module',
      pluginType: 'code-exec',
      inputs: { data },
      // The code's own literal is built from pieces: the definition holds no template here.
      config: { code: "return { data: inputs.data, made: '$' + '{{ secrets.X_KEY }}' }" },
    },
    resend: {
      type: 'module',
      pluginType: 'http-request',
      config: { url: `${baseUrl}/echo-code`, method: 'POST', body: '${{ steps.code.outputs }}' },
    },
    note: { type: 'module', pluginType: 'log', config: { message: 'data: ${{ steps.code.outputs.data }}' } },
  });
  const chain = (first: string) => [
    { from: first, to: 'send' },
    { from: 'send', to: 'code' },
    { from: 'code', to: 'resend' },
    { from: 'resend', to: 'note' },
  ];

  /** What the receiving server got for one execution, and the run's log line: every bait as literal text. */
  async function assertLiteral(id: string, since: number): Promise<void> {
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const got = received.slice(since);
    const echo = got.find((r) => r.path === '/echo')!;
    assert.deepEqual(JSON.parse(echo.body), { data: BAIT }, 'the server received the bait verbatim');
    assert.equal(echo.authorization, `Bearer ${Y}`, "the definition's own secret still resolves");
    const fromCode = JSON.parse(got.find((r) => r.path === '/echo-code')!.body) as Record<string, unknown>;
    assert.deepEqual(fromCode, { data: BAIT, made: '${{ secrets.X_KEY }}' }, 'code-exec saw and returned literal text');
    for (const r of got) assert.equal(r.body.includes(X), false, 'the secret named by data was sent');
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.equal(logs.body.data.length, 1);
    assert.equal(logs.body.data[0].message, `data: ${JSON.stringify(BAIT)}`);
  }

  /** Asserted where the worker decrypts: X is never decrypted, Y only for the step that names it. */
  function assertDecrypted(id: string): void {
    const decrypted = env.workerLog
      .entries()
      .filter((entry) => entry.msg === 'secrets decrypted for a step' && entry.executionId === id)
      .map((entry) => ({ stepId: entry.stepId, secrets: entry.secrets }));
    assert.deepEqual(decrypted, [{ stepId: 'send', secrets: ['Y_KEY'] }]);
  }

  it('a webhook body', async () => {
    const workflowId = await publish(env, org, {
      name: 'Webhook bait',
      key: 'webhook-bait',
      steps: {
        hook: { type: 'trigger', pluginType: 'webhook', config: { mode: 'start', method: 'POST' } },
        ...consumers('${{ steps.hook.outputs.body.bait }}'),
      },
      connections: chain('hook'),
    });
    const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const path = new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
    const since = received.length;
    const res = await env.t.request.post(path).send({ bait: BAIT });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const list = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`)).expect(200);
    const id = list.body.data[0].id as string;
    await assertLiteral(id, since);
    assertDecrypted(id);
  });

  it('a signal payload', async () => {
    await publish(env, org, {
      name: 'Signal bait',
      key: 'signal-bait',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        wait: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1h' } },
        ...consumers('${{ steps.wait.outputs.payload.bait }}'),
      },
      connections: [{ from: 'start', to: 'wait' }, ...chain('wait')],
    });
    const since = received.length;
    const id = await execute(env, org, 'signal-bait');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/go`)).send({ bait: BAIT });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await assertLiteral(id, since);
    assertDecrypted(id);
  });

  it('an http-request response body', async () => {
    await publish(env, org, {
      name: 'Response bait',
      key: 'response-bait',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        fetch: { type: 'module', pluginType: 'http-request', config: { url: `${baseUrl}/bait` } },
        ...consumers('${{ steps.fetch.outputs.body.bait }}'),
      },
      connections: [{ from: 'start', to: 'fetch' }, ...chain('fetch')],
    });
    const since = received.length;
    const id = await execute(env, org, 'response-bait');
    await assertLiteral(id, since);
    assertDecrypted(id);
  });

  it('a code-exec result, and a step whose inputs are the incoming item itself', async () => {
    await publish(env, org, {
      name: 'Code bait',
      key: 'code-bait',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        make: {
          type: 'module',
          pluginType: 'code-exec',
          inputs: { bait: '${{ workflow.inputs.bait }}' },
          config: { code: 'return { bait: inputs.bait }' },
        },
        ...consumers('${{ steps.make.outputs.bait }}'),
        // No declared inputs: the plugin gets the incoming item (the data) as its inputs.
        item: { type: 'module', pluginType: 'code-exec', config: { code: 'return { seen: inputs.bait }' } },
      },
      connections: [{ from: 'start', to: 'make' }, ...chain('make'), { from: 'make', to: 'item' }],
      outputs: { seen: '${{ steps.item.outputs.seen }}' },
    });
    const since = received.length;
    const id = await execute(env, org, 'code-bait', { inputs: { bait: BAIT } });
    await assertLiteral(id, since);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { seen: BAIT });
    assertDecrypted(id);
  });
  /**
   * Found in review (issue #25): a template inside a code-exec string literal was pasted into the
   * JavaScript, so an anonymous webhook body ended the literal and ran as code that returned the
   * secret one character apart (past the scrubber). Now the script reads the template's value.
   */
  it('a webhook body inside a code-exec string literal stays text: it cannot end the literal and run', async () => {
    const workflowId = await publish(env, org, {
      name: 'Greeter',
      key: 'greeter',
      steps: {
        hook: { type: 'trigger', pluginType: 'webhook', config: { mode: 'start', method: 'POST' } },
        greet: {
          type: 'module',
          pluginType: 'code-exec',
          config: {
            code: [
              "const key = '${{ secrets.X_KEY }}';",
              "const who = '${{ workflow.inputs.body.who }}';",
              'const note = `to ${{ workflow.inputs.body.who }}`; // for ${{ workflow.inputs.body.who }}',
              'return { who, note, keyLength: key.length };',
            ].join('\n'),
          },
        },
      },
      connections: [{ from: 'hook', to: 'greet' }],
      outputs: { greet: '${{ steps.greet.outputs }}' },
    });
    const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const path = new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
    const who = "'+key.split('').join('~')+'";
    // Anonymous: the webhook URL's token is the only credential.
    const res = await env.t.request.post(path).set('Content-Type', 'application/json').send(JSON.stringify({ who }));
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const list = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`)).expect(200);
    const id = list.body.data[0].id as string;
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { greet: { who, note: `to ${who}`, keyLength: X.length } }, 'the body arrived as text, intact');
    const spread = X.split('').join('~');
    for (const path of ['', '/state', '/steps', '/steps/greet', '/logs']) {
      const read = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`)).expect(200);
      for (const form of [X, spread]) assert.equal(read.text.includes(form), false, `${path} returns the secret`);
    }
    // The secret template is resolved by the activity: neither the value nor the script's source in history carries it.
    const history = JSON.stringify(await env.temporal.client.workflow.getHandle(id).fetchHistory(), (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    assert.ok(history.includes("const who = '${{ workflow.inputs.body.who }}'"), 'the code travels as written');
    for (const form of [X, spread]) assert.equal(history.includes(form), false, 'the Temporal history carries the secret');
  });

  it('a template where code-exec would read it as code is refused at publish, with the idiom', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions')).send({
      name: 'Pattern',
      key: 'pattern',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        match: {
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return { ok: /^${{ workflow.inputs.prefix }}/.test(inputs.name) }' },
        },
      },
      connections: [{ from: 'start', to: 'match' }],
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    const errors = res.body.errors as Array<{ path: string; message: string }>;
    assert.deepEqual(
      errors.map((error) => error.path),
      ['/steps/match/config/code'],
    );
    assert.match(errors[0].message, /regular expression literal/);
    assert.match(errors[0].message, /read it as inputs\.who/);
  });
});
