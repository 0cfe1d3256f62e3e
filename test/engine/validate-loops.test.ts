/**
 * The loop watch-outs warned at validation (workflows/engine/validate-loops.ts), as the compatible engine's
 * validator warns: a summary on a split-in-batches `done` edge reading `$items`, and a back-edge whose loop
 * has no accumulator. Warnings, never errors: such a definition still publishes.
 */
import assert from 'node:assert/strict';
import { validateDefinition } from '../../workflows/engine';
import { doc, step, trigger } from '../support/definitions';

/** The warning codes the validator documents (docs/definitions.md). */
const DONE_READS_ITEMS = 'DONE_READS_ITEMS';
const LOOP_WITHOUT_ACCUMULATOR = 'LOOP_WITHOUT_ACCUMULATOR';

const load = step('load', 'code-exec', { code: 'return { items: [1, 2, 3] };' }, { dependsOn: ['start'] });
const split = step('split', 'split-in-batches', { batchSize: 2 }, { dependsOn: ['load'] });
const work = step('work', 'code-exec', { mode: 'all', code: 'return { size: $items.length };' });

function codes(definition: Record<string, unknown>) {
  const result = validateDefinition(definition);
  assert.deepEqual(result.errors, []);
  return result.warnings.filter((w) => w.code === DONE_READS_ITEMS || w.code === LOOP_WITHOUT_ACCUMULATOR);
}

describe('loop watch-outs warned at validation', () => {
  it('warns about a summary on the done edge reading $items, and a loop without an accumulator', () => {
    //   start ─▶ load ─▶ split ─loop─▶ work ─┐
    //                      ▲──────────────────┘
    //                      └─done─▶ summary (log reading $items)
    const warnings = codes(
      doc(
        [
          trigger(),
          load,
          split,
          work,
          step('summary', 'log', { message: '${{ $items.length }} done' }, { metadata: { fanOutPerItem: false } }),
        ],
        { edges: ['split:loop->work', 'work->split', 'split:done->summary'] },
      ),
    );
    assert.deepEqual(
      warnings.map((w) => w.code),
      [DONE_READS_ITEMS, LOOP_WITHOUT_ACCUMULATOR],
    );
    assert.match(warnings[0].message, /step "summary" reads \$items on the done port of "split".*variables\.results.*totalProcessed/);
    assert.equal(warnings[0].path, '/steps/4/config/message');
    assert.match(warnings[1].message, /the loop from "work" back to "split" has no accumulator.*set-variable/);
    assert.equal(warnings[1].path, '/connections/1');
  });

  it('is quiet with a set-variable accumulator at the loop tail and a summary reading the variable', () => {
    //   start ─▶ load ─▶ split ─loop─▶ work ─▶ collect (set-variable) ─┐
    //                      ▲─────────────────────────────────────────────┘
    //                      └─done─▶ summary (reads variables.results)
    const definition = {
      ...doc(
        [
          trigger(),
          load,
          split,
          work,
          step('collect', 'set-variable', { name: 'results', value: '${{ concat(variables.results, $items) }}' }),
          step('summary', 'log', { message: '${{ variables.results }}' }),
        ],
        { edges: ['split:loop->work', 'work->collect', 'collect->split', 'split:done->summary'] },
      ),
      variables: { results: { initialValue: [] } },
    };
    assert.deepEqual(codes(definition), []);
  });

  it('a code-exec summary reading the $items global on done is warned too', () => {
    const warnings = codes(
      doc([trigger(), load, split, work, step('summary', 'code-exec', { mode: 'all', code: 'return { n: $items.length };' })], {
        edges: ['split:loop->work', 'work->split', 'split:done->summary'],
      }),
    );
    assert.ok(
      warnings.some((w) => w.code === DONE_READS_ITEMS && /config\/code|config\.code|code/.test(w.path)),
      JSON.stringify(warnings),
    );
  });
});
