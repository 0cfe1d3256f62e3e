/**
 * Items and forEach as the compatible engine documents them, where the worker
 * takes part (docs/definitions.md, "Items, fan-out and forEach"): a
 * `forEach.reduce` accumulator receives what a real code-exec activity
 * returned, and the API's validate and publish refuse a per-item step reading
 * `$items` as that engine does. The pure cases are in test/engine/compat-items.test.ts.
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: items, fan-out and forEach of the compatible engine', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  it('a forEach.reduce accumulator receives each code-exec iteration’s value (6, and a list as a list)', async () => {
    //   start ─▶ sum (forEach numbers, reduce total) ─▶ collect (forEach numbers, reduce acc)
    await publish(env, org, {
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
    const done = await waitFor(env, org, await execute(env, org, 'reduce-values', { inputs: { numbers: [1, 2, 3] } }), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { total: 6, doubled: [2, 4, 6], each: [{ result: 1 }, { result: 3 }, { result: 6 }] });
  });

  it('validate and publish answer FANOUT_ITEMS_UNAVAILABLE for a per-item step reading $items', async () => {
    const definition = {
      name: 'items-per-item',
      path: '/compat',
      steps: [
        trigger(),
        {
          id: 'call',
          type: 'module',
          pluginType: 'http-request',
          config: { url: 'https://api.test/${{ len($items) }}' },
          dependsOn: ['start'],
        },
      ],
    };
    const validated = await org.auth(env.t.request.post('/workflows/definitions/validate')).send(definition);
    assert.equal(validated.status, 200);
    assert.equal(validated.body.valid, false);
    assert.deepEqual(
      validated.body.errors.map((e: { path: string; message: string }) => [e.path, e.message.split(':')[0]]),
      [['/steps/1/config/url', 'FANOUT_ITEMS_UNAVAILABLE']],
    );
    const published = await org.auth(env.t.request.post('/workflows/definitions')).send(definition);
    assert.equal(published.status, 400, JSON.stringify(published.body));
    assert.deepEqual(published.body.errors, validated.body.errors);
  });
});
