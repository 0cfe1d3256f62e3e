/**
 * Items, fan-out and forEach as the compatible engine documents them
 * (engine-reference §1 "Validation", §2 "executeMode and implicit fan-out",
 * "forEach", §4 split-in-batches): each case is a definition written for that
 * engine, run unchanged with the kit's runWorkflow (the engine code the worker
 * runs, real code-exec included) or validated by the one validator the API and
 * the kit share. docs/definitions.md, "Items, fan-out and forEach".
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { connections, step, trigger } from '../support/definitions';

function doc(steps: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'compat', path: '/compat', steps, ...extra };
}

describe('compatible engine: items, fan-out and forEach', () => {
  describe('forEach.reduce', () => {
    it('hands the accumulator each iteration’s value: the documented sum is 6, not "[object Object]3"', async () => {
      //   start ─▶ sum (forEach [1, 2, 3], reduce into total)
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step(
              'sum',
              'code-exec',
              { code: 'return inputs.total + inputs.item;' },
              {
                dependsOn: ['start'],
                forEach: { expression: '${{ workflow.inputs.numbers }}', reduce: { initialValue: 0, accumulator: 'total' } },
              },
            ),
          ],
          { outputs: { total: '${{ steps.sum.outputs.result }}' } },
        ),
        inputs: { numbers: [1, 2, 3] },
      });
      assert.equal(run.status, 'completed');
      assert.deepEqual(run.outputs, { total: 6 });
      assert.equal(run.variables.total, 6);
      // Each iteration's output keeps its documented shape (a number becomes {result}).
      assert.deepEqual(run.steps.sum.outputs.items, [{ result: 1 }, { result: 3 }, { result: 6 }]);
    });

    it('accumulates a list returned by each iteration as that list', async () => {
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          step(
            'collect',
            'code-exec',
            { code: 'return [...inputs.acc, inputs.item * 2];' },
            { dependsOn: ['start'], forEach: { expression: 'workflow.inputs.numbers', reduce: { initialValue: [], accumulator: 'acc' } } },
          ),
        ]),
        inputs: { numbers: [1, 2, 3] },
      });
      assert.equal(run.status, 'completed');
      assert.deepEqual(run.steps.collect.outputs.result, [2, 4, 6]);
      assert.deepEqual(run.variables.acc, [2, 4, 6]);
    });

    it('an object an iteration returns is the accumulator as returned', async () => {
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          step(
            'count',
            'code-exec',
            { code: 'return { n: inputs.tally.n + 1, last: inputs.item };' },
            {
              dependsOn: ['start'],
              forEach: { expression: 'workflow.inputs.words', reduce: { initialValue: { n: 0 }, accumulator: 'tally' } },
            },
          ),
        ]),
        inputs: { words: ['a', 'b'] },
      });
      assert.deepEqual(run.steps.count.outputs.result, { n: 2, last: 'b' });
    });
  });

  describe('split-in-batches', () => {
    it('splits the items of a {items: [...]} result from code-exec, without arrayPath', async () => {
      //   start ─▶ load ─▶ split ─loop─▶ work ─┐
      //                      ▲─────────────────┘
      //                      └─done─▶ finish
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step('load', 'code-exec', { code: 'return { items: [1, 2, 3, 4, 5].map((n) => ({ n })) };' }, { dependsOn: ['start'] }),
            step('split', 'split-in-batches', { batchSize: 2 }, { dependsOn: ['load'] }),
            step('work', 'set-variable', { path: 'seen', value: '${{ concat(variables.seen, $items) }}' }),
            step('finish', 'no-op'),
          ],
          {
            variables: { seen: { initialValue: [] } },
            connections: connections('split:loop->work', 'work->split', 'split:done->finish'),
          },
        ),
      });
      assert.equal(run.status, 'completed');
      assert.deepEqual(run.variables.seen, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }]);
      assert.equal(run.steps.split.runs, 4);
      assert.deepEqual(run.steps.finish.items, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }]);
    });
  });
});
