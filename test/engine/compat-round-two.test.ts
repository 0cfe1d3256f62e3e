/**
 * Issue 41, round two: definitions written for the compatible engine that used to publish
 * cleanly and then fail or compute something else here (engine-reference §2, §4).
 * Each case runs the definition unchanged with the kit's runWorkflow (the engine code the
 * worker runs). docs/definitions.md, "Coming from the compatible engine".
 */
import assert from 'node:assert/strict';
import { runWorkflow } from '../../kit';
import { evaluateExpression, validateDefinition } from '../../workflows/engine';
import { connections, doc, step, trigger } from '../support/definitions';

describe('compatible engine, round two', () => {
  describe('ordering comparisons with a missing value', () => {
    it('answer false on either side (<, <=, >, >=), equality unchanged', () => {
      const scope = { workflow: { inputs: { n: null } } } as never;
      for (const source of [
        'workflow.inputs.missing >= 3',
        'workflow.inputs.missing < 3',
        'workflow.inputs.missing <= 0',
        'workflow.inputs.missing > -1',
        '3 > workflow.inputs.missing',
        'workflow.inputs.n >= 0',
        'workflow.inputs.n <= 0',
        '0 < workflow.inputs.n',
      ]) {
        assert.equal(evaluateExpression(source, scope), false, source);
      }
      assert.equal(evaluateExpression('workflow.inputs.n == workflow.inputs.missing', scope), true);
      assert.equal(evaluateExpression('workflow.inputs.n != 0', scope), true);
      assert.equal(evaluateExpression('workflow.inputs.n === null', scope), true);
      assert.equal(evaluateExpression("'2' < 3", scope), true);
    });

    it('a decider on an output the step did not produce takes the false branch', async () => {
      //   start ─▶ count ─▶ enough ─true─▶ yes
      //                           └false─▶ no
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step('count', 'code-exec', { code: 'return { other: 1 };' }, { dependsOn: ['start'] }),
            step('enough', 'conditional', { expression: 'steps.count.outputs.count >= 3' }, { dependsOn: ['count'] }),
            step('yes', 'no-op'),
            step('no', 'no-op'),
          ],
          { connections: connections('enough:true->yes', 'enough:false->no') },
        ),
      });
      assert.equal(run.status, 'completed');
      assert.equal(run.steps.no.status, 'completed');
      assert.equal(run.steps.yes.status, 'skipped');
    });
  });

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

  describe('split-in-batches done port after a loop body that runs once per batch', () => {
    it('reports every item and totalProcessed, not one summary per batch', async () => {
      //   start ─▶ load ─▶ split ─loop─▶ work (code-exec, once per batch) ─┐
      //                      ▲──────────────────────────────────────────────┘
      //                      └─done─▶ finish
      const ten = Array.from({ length: 10 }, (_, n) => ({ n }));
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step(
              'load',
              'code-exec',
              { code: 'return { items: Array.from({ length: 10 }, (_, n) => ({ n })) };' },
              { dependsOn: ['start'] },
            ),
            step('split', 'split-in-batches', { batchSize: 3 }, { dependsOn: ['load'] }),
            step('work', 'code-exec', { mode: 'all', code: 'return { size: $items.length };' }),
            step('finish', 'no-op'),
          ],
          {
            connections: connections('split:loop->work', 'work->split', 'split:done->finish'),
            outputs: { total: '${{ steps.split.outputs.totalProcessed }}' },
          },
        ),
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps));
      assert.equal(run.steps.work.runs, 4);
      assert.deepEqual(run.steps.finish.items, ten);
      assert.deepEqual(run.steps.split.outputs.items, ten);
      assert.equal(run.steps.split.outputs.totalProcessed, 10);
      assert.deepEqual(run.outputs, { total: 10 });
    });

    it('keeps what a per-item loop body gave back', async () => {
      //   start ─▶ load ─▶ split ─loop─▶ double (code-exec, per item) ─┐
      //                      ▲──────────────────────────────────────────┘
      //                      └─done─▶ finish
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step('load', 'code-exec', { code: 'return { items: [1, 2, 3].map((n) => ({ n })) };' }, { dependsOn: ['start'] }),
            step('split', 'split-in-batches', { batchSize: 2 }, { dependsOn: ['load'] }),
            step('double', 'code-exec', { mode: 'each', code: 'return { n: inputs.n * 2 };' }),
            step('finish', 'no-op'),
          ],
          { connections: connections('split:loop->double', 'double->split', 'split:done->finish') },
        ),
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps));
      assert.deepEqual(run.steps.finish.items, [{ n: 2 }, { n: 4 }, { n: 6 }]);
      assert.equal(run.steps.split.outputs.totalProcessed, 3);
    });
  });

  describe('outputProjection on a forEach step', () => {
    it("trims each iteration's output: outputs.items holds the projected items", async () => {
      //   start ─▶ each (code-exec, forEach over [1, 2]; outputProjection: [id])
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step(
              'each',
              'code-exec',
              { code: "return { id: inputs.item, noise: 'x'.repeat(10) };" },
              {
                dependsOn: ['start'],
                forEach: { expression: 'variables.list' },
                outputProjection: ['id'],
              },
            ),
          ],
          { variables: { list: { initialValue: [1, 2] } } },
        ),
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps.each));
      assert.deepEqual(run.steps.each.outputs.items, [{ id: 1 }, { id: 2 }]);
      assert.equal(run.steps.each.outputs.count, 2);
    });
  });

  describe('error_handling.retry_policy on a forEach step (the published spelling, with jitter)', () => {
    it('retries each iteration on its own, not one marked retryable: false; in parallel a spent one is {} in its slot', async () => {
      //   start ─▶ each (notify, forEach over [1, 2, 3], parallel; retry_policy max_attempts 3, jitter 0.3)
      const tries: Record<number, number> = {};
      const run = await runWorkflow({
        definition: doc(
          [
            trigger(),
            step(
              'each',
              'notify',
              {},
              {
                dependsOn: ['start'],
                forEach: { expression: 'variables.list', parallel: true },
                error_handling: { retry_policy: { max_attempts: 3, initial_interval: '2s', backoff_strategy: 'exponential', jitter: 0.3 } },
              },
            ),
          ],
          { variables: { list: { initialValue: [1, 2, 3] } } },
        ),
        stubs: {
          notify: {
            handler: (ctx) => {
              const n = ctx.inputs.item as number;
              tries[n] = (tries[n] ?? 0) + 1;
              if (n === 2 && tries[n] < 3) return { status: 'failure', error: { code: 'BUSY', message: 'busy', retryable: true } };
              if (n === 3) return { status: 'failure', error: { code: 'REFUSED', message: 'no', retryable: false } };
              return { n };
            },
          },
        },
      });
      assert.equal(run.status, 'completed', JSON.stringify(run.steps.each));
      assert.deepEqual(tries, { 1: 1, 2: 3, 3: 1 });
      assert.deepEqual(run.steps.each.outputs, { items: [{ n: 1 }, { n: 2 }, {}], count: 3, failed: 1 });
    });
  });
});
