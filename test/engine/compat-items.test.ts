/**
 * Items, fan-out and forEach as the compatible engine documents them
 * (engine-reference §1 "Validation", §2 "executeMode and implicit fan-out",
 * "forEach", §4 split-in-batches): each case is a definition written for that
 * engine, run unchanged with the kit's runWorkflow (the engine code the worker
 * runs, real code-exec included) or validated by the one validator the API and
 * the kit share. docs/definitions.md, "Items, fan-out and forEach".
 */
import assert from 'node:assert/strict';
import { DefinitionInvalid, runWorkflow, validateDefinition as validateWithKit } from '../../kit';
import { validateDefinition } from '../../workflows/engine';
import { connections, doc, step, trigger } from '../support/definitions';

/** The validator's messages for a definition, as `path: message` lines (the API and the kit answer the same). */
function problems(definition: Record<string, unknown>): string[] {
  const engine = validateDefinition(definition).errors.map((e) => `${e.path}: ${e.message}`);
  const kit = validateWithKit(definition).errors.map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(kit, engine);
  return engine;
}

/** A code-exec step returning three people as three items (`returns: items`). */
const people = step(
  'people',
  'code-exec',
  { code: "return [{ name: 'ana' }, { name: 'bo' }, { name: 'cy' }];", returns: 'items' },
  { dependsOn: ['start'] },
);

describe('compatible engine: items, fan-out and forEach', () => {
  describe('$item in a step whose plugin runs once per batch', () => {
    it('a log step reading $item logs once per item; without $item it still logs once for the batch', async () => {
      //   start ─▶ people ─▶ hello ─▶ summary
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          people,
          step(
            'hello',
            'log',
            { message: 'hello ${{ $item.name }} (${{ $itemIndex + 1 }}/${{ $itemsLength }})' },
            { dependsOn: ['people'] },
          ),
          step('summary', 'log', { message: '${{ $itemsLength }} people' }, { dependsOn: ['hello'] }),
        ]),
      });
      assert.equal(run.status, 'completed');
      assert.deepEqual(
        run.logs.map((line) => `${line.stepId}: ${line.message}`),
        ['hello: hello ana (1/3)', 'hello: hello bo (2/3)', 'hello: hello cy (3/3)', 'summary: 3 people'],
      );
      // The items pass through unchanged and in order.
      assert.deepEqual(run.steps.hello.items, [{ name: 'ana' }, { name: 'bo' }, { name: 'cy' }]);
      assert.deepEqual(run.steps.summary.items, [{ name: 'ana' }, { name: 'bo' }, { name: 'cy' }]);
    });

    it('refuses $item where the step is told to run once for the batch, saying what to read instead', () => {
      const told = doc([
        trigger(),
        people,
        // `$item` there is the batch's first item (compat-round-two.test.ts); `$itemIndex` would always be 0.
        step('hello', 'log', { message: 'hello ${{ $itemIndex }}' }, { dependsOn: ['people'], metadata: { fanOutPerItem: false } }),
      ]);
      const found = problems(told);
      assert.equal(found.length, 1);
      assert.match(found[0], /^\/steps\/2\/config\/message: .*runs once for its whole batch \(metadata\.fanOutPerItem: false\)/);
      assert.match(found[0], /read \$items and \$itemsLength/);

      // Reading $item and $items together: the step cannot be both; it says so.
      const both = doc([
        trigger(),
        people,
        step('keep', 'set-variable', { assignments: { first: '${{ $item.name }}', all: '${{ $items }}' } }, { dependsOn: ['people'] }),
      ]);
      assert.match(problems(both).join('\n'), /\/steps\/2\/config\/assignments\/first: .*also reads \$items/);

      // A plugin that keeps its place across loop re-entries never runs per item.
      const paging = doc([
        trigger(),
        people,
        step('pages', 'paginated-fetch', { url: 'https://api.test/${{ $item.name }}' }, { dependsOn: ['people'] }),
      ]);
      assert.match(
        problems(paging).join('\n'),
        /^\/steps\/2\/config\/url: BATCH_ITEM_UNAVAILABLE: .*\(plugin paginated-fetch\).*never runs per item/,
      );
    });
  });

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

    it('warns that reduce has no effect in parallel (it runs only sequentially)', () => {
      const parallel = validateDefinition(
        doc([
          trigger(),
          step(
            'sum',
            'code-exec',
            { code: 'return 1;' },
            { dependsOn: ['start'], forEach: { expression: 'variables.l', parallel: true, reduce: { accumulator: 'total' } } },
          ),
        ]),
      );
      assert.deepEqual(parallel.errors, []);
      assert.deepEqual(
        parallel.warnings.map((w) => [w.code, w.path]),
        [['DEFINITION_KEY_IGNORED', '/steps/1/forEach/reduce']],
      );
      assert.match(parallel.warnings[0].message, /only sequentially/);
    });
  });

  describe('forEach with a declared inputs map', () => {
    it('keeps the declared inputs and adds the element (inputs.item, and its keys with spreadItem)', async () => {
      //   start ─▶ greet (forEach people, spreadItem)
      const seen: Array<Record<string, unknown>> = [];
      const run = await runWorkflow({
        definition: doc([
          trigger(),
          step(
            'greet',
            'http-request',
            { url: 'https://api.test/${{ inputs.region }}/${{ inputs.name }}/${{ $itemIndex }}' },
            {
              dependsOn: ['start'],
              inputs: { region: 'eu', requestedBy: '${{ workflow.inputs.who }}' },
              forEach: { expression: 'workflow.inputs.people', spreadItem: true },
            },
          ),
          step(
            'code',
            'code-exec',
            { code: 'return inputs;' },
            { dependsOn: ['greet'], inputs: { region: 'eu' }, forEach: { expression: 'workflow.inputs.people' } },
          ),
        ]),
        inputs: { who: 'ops', people: [{ name: 'ana' }, { name: 'bo' }] },
        stubs: {
          'http-request': (ctx) => {
            seen.push({ url: ctx.config.url, ...ctx.inputs });
            return { statusCode: 200 };
          },
        },
      });
      assert.equal(run.status, 'completed');
      assert.deepEqual(seen, [
        { url: 'https://api.test/eu/ana/0', region: 'eu', requestedBy: 'ops', item: { name: 'ana' }, index: 0, name: 'ana' },
        { url: 'https://api.test/eu/bo/1', region: 'eu', requestedBy: 'ops', item: { name: 'bo' }, index: 1, name: 'bo' },
      ]);
      // The real code-exec reads the same inputs (declared ones kept, the element beside them).
      assert.deepEqual(run.steps.code.outputs.items, [
        { region: 'eu', item: { name: 'ana' }, index: 0 },
        { region: 'eu', item: { name: 'bo' }, index: 1 },
      ]);
    });

    it('refuses $item in a forEach step’s inputs and config (it is not the element), naming what to read', () => {
      const found = problems(
        doc([
          trigger(),
          step(
            'greet',
            'http-request',
            { url: 'https://api.test/${{ $item.name }}' },
            {
              dependsOn: ['start'],
              inputs: { who: '${{ $item.name }}', at: '${{ $itemIndex }}' },
              forEach: { expression: 'workflow.inputs.people', itemVariable: 'person' },
            },
          ),
        ]),
      );
      assert.deepEqual(
        found.map((line) => line.split(':')[0]),
        ['/steps/1/config/url', '/steps/1/inputs/who', '/steps/1/inputs/at'],
      );
      assert.match(found[0], /inputs\.person or variables\.person/);
      assert.match(found[0], /spreadItem/);
      assert.match(found[2], /variables\.index/);
      // The forEach expression and the step condition read the step's incoming items: $item is in scope there.
      assert.deepEqual(
        problems(
          doc([
            trigger(),
            step(
              'greet',
              'http-request',
              { url: 'https://api.test/${{ variables.item.name }}' },
              { dependsOn: ['start'], condition: '$item != null', forEach: { expression: '$item.people' } },
            ),
          ]),
        ),
        [],
      );
    });
  });

  describe('$items in a step that runs once per item', () => {
    it('is FANOUT_ITEMS_UNAVAILABLE at validation, in templates and in code-exec code, with the way out', () => {
      const perItem = problems(
        doc([
          trigger(),
          people,
          step(
            'call',
            'http-request',
            { url: 'https://api.test/${{ $item.name }}', body: { all: '${{ $items }}' } },
            { dependsOn: ['people'] },
          ),
          step('each', 'code-exec', { mode: 'each', code: 'return { n: $items.length };' }, { dependsOn: ['people'] }),
          step('forced', 'log', { message: '${{ len($items) }}' }, { dependsOn: ['people'], metadata: { fanOutPerItem: true } }),
        ]),
      );
      assert.equal(perItem.length, 3, perItem.join('\n'));
      assert.match(
        perItem[0],
        /^\/steps\/2\/config\/body\/all: FANOUT_ITEMS_UNAVAILABLE: step "call" runs once per item \(plugin http-request\)/,
      );
      assert.match(perItem[0], /metadata\.fanOutPerItem: false/);
      assert.match(perItem[1], /^\/steps\/3\/config\/code: FANOUT_ITEMS_UNAVAILABLE: step "each" runs once per item \(config mode: each\)/);
      assert.match(perItem[2], /^\/steps\/4\/config\/message: FANOUT_ITEMS_UNAVAILABLE: .*\(metadata\.fanOutPerItem: true\)/);
      // A property or a name of the script's own is not the global.
      const own = step('own', 'code-exec', { mode: 'each', code: 'const $items = [inputs.$items]; return { $items, n: $items.length };' });
      assert.deepEqual(problems(doc([trigger(), { ...own, dependsOn: ['start'] }])), []);
    });

    it('validates $items where the step gets the whole batch, and runs it', async () => {
      //   start ─▶ people ─▶ count (fanOutPerItem: false) ─▶ keep (set-variable) ─▶ code (code-exec, mode all)
      const definition = doc([
        trigger(),
        people,
        step(
          'count',
          'http-request',
          { url: 'https://api.test/${{ len($items) }}' },
          { dependsOn: ['people'], metadata: { fanOutPerItem: false } },
        ),
        step('keep', 'set-variable', { path: 'everyone', value: '${{ $items }}' }, { dependsOn: ['count'] }),
        step('code', 'code-exec', { code: 'return { n: $items.length, local: (($items) => $items)(1) };' }, { dependsOn: ['keep'] }),
      ]);
      assert.deepEqual(problems(definition), []);
      const run = await runWorkflow({ definition, stubs: { 'http-request': (ctx) => ({ url: ctx.config.url }) } });
      assert.deepEqual(run.steps.count.outputs, { url: 'https://api.test/3' });
      assert.equal((run.variables.everyone as unknown[]).length, 1);
    });

    it('runWorkflow refuses what validate refuses, before any step runs', async () => {
      await assert.rejects(
        runWorkflow({
          definition: doc([
            trigger(),
            people,
            step('call', 'http-request', { url: 'https://api.test/${{ len($items) }}' }, { dependsOn: ['people'] }),
          ]),
          stubs: { 'http-request': () => ({}) },
        }),
        (error: unknown) => error instanceof DefinitionInvalid && /FANOUT_ITEMS_UNAVAILABLE/.test(error.message),
      );
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

  describe('validation parity: forEach and fan-out settings the runtime reads', () => {
    const withForEach = (forEach: Record<string, unknown>, metadata?: Record<string, unknown>, config: Record<string, unknown> = {}) =>
      doc([
        trigger(),
        step('each', 'no-op', config, {
          dependsOn: ['start'],
          forEach: { expression: 'variables.l', ...forEach },
          ...(metadata ? { metadata } : {}),
        }),
      ]);
    const fanOut = (metadata: Record<string, unknown>, config: Record<string, unknown> = {}) =>
      doc([trigger(), step('each', 'no-op', config, { dependsOn: ['start'], metadata })]);

    it('refuses values the runtime would read differently than written', () => {
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [withForEach({ parallel: 'false' }), /\/steps\/1\/forEach\/parallel: must be a boolean/],
        [withForEach({ spreadItem: 'yes' }), /\/steps\/1\/forEach\/spreadItem: must be a boolean/],
        [withForEach({ maxConcurrency: '${{ variables.n }}' }), /\/steps\/1\/forEach\/maxConcurrency: must be an integer >= 1/],
        [withForEach({ maxConcurrency: 0 }), /\/steps\/1\/forEach\/maxConcurrency: must be an integer >= 1/],
        [withForEach({ itemVariable: 'the item' }), /\/steps\/1\/forEach\/itemVariable: must be a variable name/],
        [withForEach({ indexVariable: 7 }), /\/steps\/1\/forEach\/indexVariable: must be a variable name/],
        [fanOut({ fanOutPerItem: 'true' }), /\/steps\/1\/metadata\/fanOutPerItem: must be a boolean/],
        [fanOut({ maxParallelism: 'lots' }), /\/steps\/1\/metadata\/maxParallelism: must be an integer >= 1/],
        [fanOut({}, { maxParallelism: '${{ variables.n }}' }), /\/steps\/1\/config\/maxParallelism: must be an integer >= 1/],
      ];
      for (const [definition, expected] of cases) assert.match(problems(definition).join('\n'), expected);
      assert.deepEqual(
        problems(withForEach({ parallel: true, maxConcurrency: 3, itemVariable: 'user', indexVariable: 'at', spreadItem: false })),
        [],
      );
      assert.deepEqual(problems(fanOut({ fanOutPerItem: true, maxParallelism: 2 }, { maxParallelism: 4 })), []);
    });
  });
});
