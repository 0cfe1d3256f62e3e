/**
 * Coming from the compatible engine: plugin outputs and settings on the real
 * stack (API, Temporal, worker, sandbox, secrets). Each definition is written
 * as that engine's documentation writes it, published and run unchanged.
 * The pure rules are test/engine/compat-plugins.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { allCapturedLines } from '../support/logger';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const waiting = (body: Record<string, unknown>): boolean => body.status === 'waiting';

describe('executions API: coming from the compatible engine (plugins)', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let server: Server;
  let baseUrl: string;
  const received: Array<{ method?: string; body: string }> = [];

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method, body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, echoed: body === '' ? null : (JSON.parse(body) as unknown) }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it("signal-wait: a decider reads the waking payload's keys as the step's outputs, through a real signal", async () => {
    //   start ─▶ w ─▶ ok ─true─▶ yes
    //                    └false─▶ no
    await publish(env, org, {
      name: 'Compat approval',
      key: 'compat-approval',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        { id: 'w', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '1d' }, dependsOn: ['start'] },
        { id: 'ok', type: 'decider', pluginType: 'conditional', config: { expression: 'steps.w.outputs.approved' }, dependsOn: ['w'] },
        { id: 'yes', type: 'module', pluginType: 'set-variable', config: { path: 'decision', value: 'granted' } },
        { id: 'no', type: 'module', pluginType: 'set-variable', config: { path: 'decision', value: 'refused' } },
      ],
      connections: [
        { from: 'ok', to: 'yes', sourcePort: 'true' },
        { from: 'ok', to: 'no', sourcePort: 'false' },
      ],
      outputs: {
        decision: '${{ variables.decision }}',
        by: '${{ steps.w.outputs.by }}',
        signal: '${{ steps.w.outputs.name }}',
        payload: '${{ steps.w.outputs.payload }}',
      },
    });
    const id = await execute(env, org, 'compat-approval');
    await waitFor(env, org, id, waiting);
    const sent = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ approved: true, by: 'ana' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { decision: 'granted', by: 'ana', signal: 'approve', payload: { approved: true, by: 'ana' } });
    const record = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/w`)).expect(200);
    assert.equal(record.body.record.outputs.approved, true);
    assert.equal(record.body.record.outputs.signalId, sent.body.signalId);
  });

  it('code-exec: a returned array or scalar becomes {result}, nothing becomes {}, and returns: items makes items', async () => {
    //   start ─▶ list ─▶ count      (one call: the array is one output)
    //        ├─▶ word
    //        ├─▶ nothing
    //        └─▶ split ─▶ each     (returns: items: one call per element)
    const code = (source: string, extra: Record<string, unknown> = {}) => ({
      type: 'module',
      pluginType: 'code-exec',
      config: { code: source, ...extra },
    });
    await publish(env, org, {
      name: 'Compat results',
      key: 'compat-results',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        list: code('return [1, 2, 3]'),
        count: code('return { n: $items.length, got: inputs.result }'),
        word: code('return "hi"'),
        nothing: code('const unused = 1;'),
        split: code('return [{ n: 1 }, { n: 2 }, 3]', { returns: 'items' }),
        each: code('return { doubled: ($item.n ?? $item.result) * 2 }', { mode: 'each' }),
      },
      connections: [
        { from: 'start', to: 'list' },
        { from: 'list', to: 'count' },
        { from: 'start', to: 'word' },
        { from: 'start', to: 'nothing' },
        { from: 'start', to: 'split' },
        { from: 'split', to: 'each' },
      ],
      outputs: {
        list: '${{ steps.list.outputs.result }}',
        count: '${{ steps.count.outputs }}',
        word: '${{ steps.word.outputs }}',
        nothing: '${{ steps.nothing.outputs }}',
        split: '${{ steps.split.items }}',
        each: '${{ steps.each.items }}',
      },
    });
    const done = await waitFor(env, org, await execute(env, org, 'compat-results'), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, {
      list: [1, 2, 3],
      count: { n: 1, got: [1, 2, 3] },
      word: { result: 'hi' },
      nothing: {},
      split: [{ n: 1 }, { n: 2 }, { result: 3 }],
      each: [{ doubled: 2 }, { doubled: 4 }, { doubled: 6 }],
    });
  });

  it('log: a message mixing data and a secret renders the data and masks the secret, which reaches no record, log or history', async () => {
    const canary = `canary-${randomBytes(16).toString('hex')}`;
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'LOG_KEY', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    //   start ─▶ note(log)
    await publish(env, org, {
      name: 'Compat log',
      key: 'compat-log',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          config: {
            message: 'user ${{ workflow.inputs.user }} calls with ${{ secrets.LOG_KEY }} (${{ len(secrets.LOG_KEY) }} chars)',
            metadata: { key: '${{ secrets.LOG_KEY }}', user: '${{ workflow.inputs.user }}' },
          },
          dependsOn: ['start'],
        },
      ],
      outputs: { said: '${{ steps.note.outputs.message }}' },
    });
    const id = await execute(env, org, 'compat-log', { inputs: { user: 'ana' } });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { said: 'user ana calls with <redacted> (<redacted> chars)' });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.deepEqual(
      logs.body.data.map((line: { message: string; metadata?: unknown }) => [line.message, line.metadata]),
      [['user ana calls with <redacted> (<redacted> chars)', { key: '<redacted>', user: 'ana' }]],
    );

    // The secret was never loaded: the worker decrypted nothing for this run.
    assert.deepEqual(
      env.workerLog.entries().filter((entry) => entry.msg === 'secrets decrypted for a step' && entry.executionId === id),
      [],
    );
    for (const path of ['', '/state', '/steps', '/steps/note', '/logs', '/events']) {
      const res = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`));
      assert.equal(res.text.includes(canary), false, `${path} leaks the secret`);
    }
    const rows = await env.db.query<Array<{ text: string }>>(
      `SELECT row_to_json(e)::text AS text FROM executions e WHERE id = $1
       UNION ALL SELECT row_to_json(s)::text FROM execution_steps s WHERE execution_id = $1
       UNION ALL SELECT row_to_json(l)::text FROM execution_logs l WHERE execution_id = $1`,
      [id],
    );
    for (const row of rows) assert.equal(row.text.includes(canary), false, `a stored row leaks the secret: ${row.text}`);
    const history = JSON.stringify(await env.temporal.client.workflow.getHandle(id).fetchHistory(), (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : value,
    );
    assert.ok(history.includes('calls with <redacted>'), 'the rendered message is readable in the decoded history');
    assert.equal(history.includes(canary), false, 'the Temporal history leaks the secret');
    for (const line of allCapturedLines) assert.equal(line.includes(canary), false, 'a service log line leaks the secret');
  });

  it('settings under inputs: the quick-start form (url, method, body, message, code, name and value under inputs) runs unchanged', async () => {
    //   start ─▶ fetch ─▶ note ─▶ calc ─▶ keep
    await publish(env, org, {
      name: 'Compat quick start',
      key: 'compat-quick-start',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        {
          id: 'fetch',
          type: 'module',
          pluginType: 'http-request',
          inputs: { url: `${baseUrl}/tickets`, method: 'POST', body: { ticket: '${{ workflow.inputs.ticket }}' } },
          dependsOn: ['start'],
        },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          inputs: { message: 'ticket ${{ workflow.inputs.ticket }} answered ${{ steps.fetch.outputs.statusCode }}' },
          dependsOn: ['fetch'],
        },
        {
          id: 'calc',
          type: 'module',
          pluginType: 'code-exec',
          inputs: { code: 'return { label: inputs.prefix + "-" + ${{ workflow.inputs.ticket }} }', prefix: 'T' },
          dependsOn: ['note'],
        },
        {
          id: 'keep',
          type: 'module',
          pluginType: 'set-variable',
          inputs: { name: 'label', value: '${{ steps.calc.outputs.label }}' },
          dependsOn: ['calc'],
        },
      ],
      outputs: { echoed: '${{ steps.fetch.outputs.body.echoed }}', label: '${{ variables.label }}' },
    });
    received.length = 0;
    const id = await execute(env, org, 'compat-quick-start', { inputs: { ticket: 42 } });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(received, [{ method: 'POST', body: JSON.stringify({ ticket: 42 }) }]);
    assert.deepEqual(done.outputs, { echoed: { ticket: 42 }, label: 'T-42' });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.deepEqual(
      logs.body.data.map((line: { message: string }) => line.message),
      ['ticket 42 answered 200'],
    );
  });
});
