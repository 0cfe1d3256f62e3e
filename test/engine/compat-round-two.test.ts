/**
 * Issue 41, round two: definitions written for the compatible engine that used to publish
 * cleanly and then fail or compute something else here (engine-reference §2, §4).
 * Each case runs the definition unchanged with the kit's runWorkflow (the engine code the
 * worker runs). docs/definitions.md, "Coming from the compatible engine".
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { validateDefinition } from '../../workflows/engine';
import { step, trigger } from '../support/definitions';

function doc(steps: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'compat', path: '/compat', steps, ...extra };
}

describe('compatible engine, round two', () => {
  describe('$item in a code-exec script that runs once for the batch', () => {
    it("is the incoming item (the upstream step's output); $items stays the batch", async () => {
      //   start ─▶ user ─▶ greet (code-exec, once for the batch)
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          step('user', 'code-exec', { code: "return { name: 'ana', plan: 'pro' };" }, { dependsOn: ['start'] }),
          step(
            'greet',
            'code-exec',
            { code: 'return { hello: $item.name, plan: $item.plan, count: $items.length };' },
            { dependsOn: ['user'] },
          ),
        ]),
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps.greet));
      assert.deepEqual(run.steps.greet.outputs, { hello: 'ana', plan: 'pro', count: 1 });
    });

    it('with mode: all and several items, $item is the first and $items all of them', async () => {
      //   start ─▶ people (3 items) ─▶ first (code-exec, mode: all)
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          step(
            'people',
            'code-exec',
            { code: "return [{ name: 'ana' }, { name: 'bo' }, { name: 'cy' }];", returns: 'items' },
            { dependsOn: ['start'] },
          ),
          step(
            'first',
            'code-exec',
            { mode: 'all', code: 'return { first: $item.name, count: $items.length };' },
            { dependsOn: ['people'] },
          ),
        ]),
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps.first));
      assert.deepEqual(run.steps.first.outputs, { first: 'ana', count: 3 });
      assert.equal(run.steps.first.runs, 1);
    });
  });

  describe('$item in a template of a step told to run once for the batch (metadata.fanOutPerItem: false)', () => {
    it("publishes and reads the batch's incoming item (the first); $itemIndex there is still refused", async () => {
      //   start ─▶ people (3 items) ─▶ hello (log, fanOutPerItem: false)
      const people = step(
        'people',
        'code-exec',
        { code: "return [{ name: 'ana' }, { name: 'bo' }, { name: 'cy' }];", returns: 'items' },
        { dependsOn: ['start'] },
      );
      const definition = doc([
        trigger(),
        people,
        step(
          'hello',
          'log',
          { message: 'hello ${{ $item.name }} and ${{ $itemsLength }} in all' },
          { dependsOn: ['people'], metadata: { fanOutPerItem: false } },
        ),
      ]);
      assert.deepEqual(validateDefinition(definition).errors, []);
      const run = await runWorkflow({ definition });
      assert.equal(run.status, 'completed');
      assert.deepEqual(
        run.logs.map((line) => `${line.stepId}: ${line.message}`),
        ['hello: hello ana and 3 in all'],
      );

      const index = doc([
        trigger(),
        people,
        step('hello', 'log', { message: '${{ $itemIndex }}' }, { dependsOn: ['people'], metadata: { fanOutPerItem: false } }),
      ]);
      assert.match(
        validateDefinition(index)
          .errors.map((e) => e.message)
          .join('\n'),
        /BATCH_ITEM_UNAVAILABLE/,
      );
    });
  });
});
