/**
 * Coming from the compatible engine: plugin outputs and settings on the real
 * stack (API, Temporal, worker, sandbox, secrets). Each definition is written
 * as that engine's documentation writes it, published and run unchanged.
 * The pure rules are test/engine/compat-plugins.test.ts.
 */
import assert from 'node:assert/strict';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const waiting = (body: Record<string, unknown>): boolean => body.status === 'waiting';

describe('executions API: coming from the compatible engine (plugins)', function () {
  this.timeout(60_000);
  const { x, c } = useExecEnv();

  it("signal-wait: a decider reads the waking payload's keys as the step's outputs, through a real signal", async () => {
    //   start ─▶ w ─▶ ok ─true─▶ yes
    //                    └false─▶ no
    await publish(x, c, {
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
    const id = await execute(x, c, 'compat-approval');
    await waitFor(x, c, id, waiting);
    const sent = await c.auth(x.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ approved: true, by: 'ana' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const done = await waitFor(x, c, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { decision: 'granted', by: 'ana', signal: 'approve', payload: { approved: true, by: 'ana' } });
    const record = await c.auth(x.t.request.get(`/workflows/executions/${id}/steps/w`)).expect(200);
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
    await publish(x, c, {
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
    const done = await waitFor(x, c, await execute(x, c, 'compat-results'), finished);
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
});
