import assert from 'node:assert/strict';
import { chain, connections, executionInput, step, trigger } from '../support/definitions';

describe('test builders (test/support/definitions.ts)', () => {
  it('chains steps through dependsOn and types them by their plugin', () => {
    //   start ─▶ check ─▶ note
    assert.deepEqual(chain(trigger(), step('check', 'conditional', { expression: 'true' }), step('note', 'log', { message: 'hi' })), [
      { id: 'start', type: 'trigger', pluginType: 'manual', config: {} },
      { id: 'check', type: 'decider', pluginType: 'conditional', config: { expression: 'true' }, dependsOn: ['start'] },
      { id: 'note', type: 'module', pluginType: 'log', config: { message: 'hi' }, dependsOn: ['check'] },
    ]);
  });

  it('reads edges with source and target ports', () => {
    //   pages ─loop─▶ collect ─▶ pages(callback);  pages ─done─▶ finish
    assert.deepEqual(connections('pages:loop->collect', 'collect->pages:callback', 'pages:done->finish'), [
      { from: 'pages', to: 'collect', sourcePort: 'loop' },
      { from: 'collect', to: 'pages', targetPort: 'callback' },
      { from: 'pages', to: 'finish', sourcePort: 'done' },
    ]);
    assert.throws(() => connections('a=>b'), /bad edge/);
  });

  it('builds a validated execution input, failing on an invalid definition', () => {
    const input = executionInput({ steps: chain(trigger(), step('a', 'no-op')) }, { inputs: { n: 1 }, executionId: 'exec_1' });
    assert.equal(input.executionId, 'exec_1');
    assert.deepEqual(input.trigger.payload, { n: 1 });
    assert.deepEqual(Object.keys(input.definition.steps).sort(), ['a', 'start']);
    assert.throws(() => executionInput({ steps: [step('a', 'no-op', {}, { dependsOn: ['missing'] })] }));
  });
});
