/**
 * Items and forEach as the compatible engine documents them, where the worker
 * takes part (docs/definitions.md, "Items, fan-out and forEach"): a
 * `forEach.reduce` accumulator receives what a real code-exec activity
 * returned. The pure cases are in test/engine/compat-items.test.ts.
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: items, fan-out and forEach of the compatible engine', function () {
  this.timeout(60_000);
  const { x, c } = useExecEnv();

  it('a forEach.reduce accumulator receives each code-exec iteration’s value (6, and a list as a list)', async () => {
    //   start ─▶ sum (forEach numbers, reduce total) ─▶ collect (forEach numbers, reduce acc)
    await publish(x, c, {
      name: 'reduce-values',
      key: 'reduce-values',
      path: '/compat',
      steps: [
        trigger(),
        {
          id: 'sum',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return inputs.total + inputs.item;' },
          forEach: { expression: '${{ workflow.inputs.numbers }}', reduce: { initialValue: 0, accumulator: 'total' } },
          dependsOn: ['start'],
        },
        {
          id: 'collect',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [...inputs.acc, inputs.item * 2];' },
          forEach: { expression: 'workflow.inputs.numbers', reduce: { initialValue: [], accumulator: 'acc' } },
          dependsOn: ['sum'],
        },
      ],
      outputs: { total: '${{ steps.sum.outputs.result }}', doubled: '${{ variables.acc }}', each: '${{ steps.sum.outputs.items }}' },
    });
    const done = await waitFor(x, c, await execute(x, c, 'reduce-values', { inputs: { numbers: [1, 2, 3] } }), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { total: 6, doubled: [2, 4, 6], each: [{ result: 1 }, { result: 3 }, { result: 6 }] });
  });
});
