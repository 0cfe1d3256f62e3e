/**
 * A retry reuses what completed in the failed run (workflows/engine/runtime/reuse.ts): the pure engine is run
 * twice with fake effects, the second time seeded with the first run's completed records.
 */
import assert from 'node:assert/strict';
import type { ActivityCall, ExecutionInput, PluginResult, StepRecord } from '../../workflows/engine';
import { connections, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

/** The `reuse` of a retry of a run whose records are `steps` (what executions/retry-seed.ts reads back). */
const reuseOf = (steps: Record<string, StepRecord>): Partial<ExecutionInput> => ({
  reuse: {
    from: 'exec_failed',
    steps: Object.fromEntries(Object.entries(structuredClone(steps)).filter(([, r]) => r.status === 'completed' && r.run === 1)),
  },
});

const ok = (outputs: Record<string, unknown>): PluginResult => ({ status: 'success', outputs });
const broken: PluginResult = { status: 'failure', error: { code: 'HTTP_5XX', message: 'HTTP 500', retryable: false } };

describe('retry from the failed step (pure engine)', () => {
  it('reuses completed branches, waits and deciders, runs set-variable again, and starts at the failed step', async () => {
    //   start ─▶ count ─▶ remember (set-variable) ─▶ approve (signal-wait) ─▶ check ─true─▶ use (fails the first time)
    //     └────▶ side                                                             └false─▶ never
    const doc = {
      steps: [
        trigger(),
        { id: 'count', type: 'module', pluginType: 'http-request', config: { url: 'https://x/count' }, dependsOn: ['start'] },
        { id: 'side', type: 'module', pluginType: 'http-request', config: { url: 'https://x/side' }, dependsOn: ['start'] },
        {
          id: 'remember',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'total', value: '${{ variables.total + steps.count.outputs.body.n }}' },
          dependsOn: ['count'],
        },
        { id: 'approve', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['remember'] },
        { id: 'check', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.total > 5' }, dependsOn: ['approve'] },
        { id: 'use', type: 'module', pluginType: 'http-request', config: { url: 'https://x/use/${{ variables.total }}' } },
        { id: 'never', type: 'module', pluginType: 'no-op', config: {} },
      ],
      connections: connections('check:true->use', 'check:false->never'),
      variables: { total: { initialValue: 1 } },
      outputs: {
        total: '${{ variables.total }}',
        used: '${{ steps.use.outputs.body.url }}',
        who: '${{ steps.approve.outputs.payload.who }}',
      },
    };
    let failUse = true;
    const http = (call: ActivityCall) => {
      if (String(call.config.url).startsWith('https://x/use') && failUse) return broken;
      return ok({ statusCode: 200, body: { n: 9, url: call.config.url } });
    };
    const first = await run(
      doc,
      {},
      { activities: { 'http-request': http }, signals: () => ({ timedOut: false, name: 'go', payload: { who: 'ada' } }) },
    );
    assert.equal(first.outcome.status, 'failed');
    assert.equal(first.outcome.error?.stepId, 'use');

    failUse = false;
    // No signal arrives this time: the wait must not run again.
    const retry = await run(doc, {}, { activities: { 'http-request': http } }, reuseOf(first.ctx.steps));
    assert.deepEqual(retry.outcome, { status: 'completed', outputs: { total: 10, used: 'https://x/use/10', who: 'ada' } });
    assert.deepEqual(
      retry.calls.map((c) => c.config.url),
      ['https://x/use/10'],
    );
    assert.equal(retry.waits.length, 0);
    const reused = Object.values(retry.ctx.steps)
      .filter((r) => r.reusedFrom === 'exec_failed')
      .map((r) => r.stepId)
      .sort();
    assert.deepEqual(reused, ['approve', 'check', 'count', 'side', 'start']);
    assert.equal(retry.ctx.steps.remember.reusedFrom, undefined);
    assert.equal(retry.ctx.steps.never.status, 'skipped');
    // Reused steps are recorded as completed, with their events, like a run of them.
    assert.ok(retry.events.some((e) => e.type === 'step.completed' && e.stepId === 'count' && e.record.reusedFrom === 'exec_failed'));
  });

  it('runs a loop again rather than reusing its latest run, so variables written in it are not counted twice', async () => {
    //   start ─▶ split ─loop─▶ work (set-variable) ─▶ split (back-edge);  split ─done─▶ finish (fails the first time)
    const doc = {
      variables: { seen: { initialValue: [] } },
      steps: [
        trigger(),
        { id: 'split', type: 'module', pluginType: 'split-in-batches', config: { batchSize: 2, arrayPath: 'list' }, dependsOn: ['start'] },
        {
          id: 'work',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'seen', value: '${{ concat(variables.seen, $items) }}' },
        },
        { id: 'finish', type: 'module', pluginType: 'http-request', config: { url: 'https://x/finish' } },
      ],
      connections: connections('split:loop->work', 'work->split', 'split:done->finish'),
      outputs: { seen: '${{ len(variables.seen) }}' },
    };
    let fail = true;
    const fakes = { activities: { 'http-request': () => (fail ? broken : ok({ done: true })) } };
    const first = await run(doc, { list: [1, 2, 3, 4, 5] }, fakes);
    assert.equal(first.outcome.status, 'failed');
    fail = false;
    const retry = await run(doc, { list: [1, 2, 3, 4, 5] }, fakes, reuseOf(first.ctx.steps));
    assert.deepEqual(retry.outcome, { status: 'completed', outputs: { seen: 5 } });
    assert.equal(retry.ctx.steps.split.reusedFrom, undefined);
    assert.equal(retry.ctx.steps.start.reusedFrom, 'exec_failed');
  });

  it('restores a reused sequential forEach.reduce accumulator', async () => {
    //   start ─▶ sum (forEach, reduce into `acc`) ─▶ after (fails the first time)
    const doc = {
      steps: [
        trigger(),
        {
          id: 'sum',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return 1' },
          forEach: { expression: '${{ workflow.inputs.list }}', reduce: { accumulator: 'acc', initialValue: 0 } },
          dependsOn: ['start'],
        },
        { id: 'after', type: 'module', pluginType: 'http-request', config: { url: 'https://x/${{ variables.acc }}' }, dependsOn: ['sum'] },
      ],
      outputs: { url: '${{ steps.after.outputs.body.url }}' },
    };
    let fail = true;
    let sums = 0;
    const fakes = {
      activities: {
        'code-exec': (): PluginResult => ({ status: 'success', outputs: { result: (sums += 1) }, value: sums }),
        'http-request': (call: ActivityCall) => (fail ? broken : ok({ statusCode: 200, body: { url: call.config.url } })),
      },
    };
    const first = await run(doc, { list: [1, 2, 3] }, fakes);
    assert.equal(first.outcome.status, 'failed', JSON.stringify(first.outcome));
    const acc = first.ctx.variables.acc;
    assert.notEqual(acc, undefined);
    fail = false;
    const before = sums;
    const retry = await run(doc, { list: [1, 2, 3] }, fakes, reuseOf(first.ctx.steps));
    assert.equal(retry.outcome.status, 'completed', JSON.stringify(retry.outcome));
    assert.equal(sums, before, 'the forEach was not run again');
    assert.equal(retry.ctx.variables.acc, acc);
    assert.deepEqual(retry.outcome.outputs, { url: `https://x/${String(acc)}` });
  });
});
