/**
 * The engine's rules (workflows/engine/engine-rules.ts): a run computes under the rules it was stamped with.
 * Each case runs one definition through the pure engine with fake effects twice, stamped with rules 3 (a run
 * started before rules 4, replaying) and with the rules of a new run, and checks the old and the new result.
 */
import assert from 'node:assert/strict';
import {
  ENGINE_RULES,
  engineRuleTable,
  evaluateExpression,
  followsRule,
  type ActivityCall,
  type PluginResult,
} from '../../workflows/engine';
import { connections, doc, step, trigger } from '../support/definitions';
import { runDefinition, type Fakes } from '../support/engine-run';

const OLD = 3;

function runUnder(rules: number, definition: Record<string, unknown>, fakes: Fakes = {}, inputs: Record<string, unknown> = {}) {
  return runDefinition(definition, inputs, fakes, { engineRules: rules });
}

describe('engine rules', () => {
  it('names every rule once, the newest at ENGINE_RULES; an input without a number follows rules 1', () => {
    const table = engineRuleTable();
    assert.equal(ENGINE_RULES, 6);
    assert.equal(new Set(table.map((row) => row.rule)).size, table.length);
    assert.equal(Math.max(...table.map((row) => row.since)), ENGINE_RULES);
    assert.equal(followsRule({}, 'vars-call-only-when-needed'), false);
    assert.equal(followsRule({ engineRules: 2 }, 'vars-call-only-when-needed'), true);
    assert.equal(followsRule({ engineRules: 2 }, 'records-when-blocked'), false);
    assert.equal(followsRule({ engineRules: 3 }, 'records-when-blocked'), true);
    // Light steps by the call's own bound: runs of rules 3 that carried the limit's marker, and every run of 4.
    assert.equal(followsRule({ engineRules: 3 }, 'light-step-by-call-timeout'), false);
    assert.equal(followsRule({ engineRules: 3, limits: { lightStepRule: 'call-timeout' } }, 'light-step-by-call-timeout'), true);
    assert.equal(followsRule({ engineRules: 4 }, 'light-step-by-call-timeout'), true);
    // The last light step writes the run's end only for runs of 5 (test/engine/last-step-end.test.ts).
    assert.equal(followsRule({ engineRules: 4 }, 'end-with-last-light-step'), false);
    assert.equal(followsRule({ engineRules: 5 }, 'end-with-last-light-step'), true);
  });

  describe('an ordering comparison with a missing side', () => {
    //   start ─▶ count ─▶ enough ─true─▶ yes
    //                           └false─▶ no
    const definition = doc(
      [
        trigger(),
        step('count', 'no-op', {}, { dependsOn: ['start'] }),
        step('enough', 'conditional', { expression: 'steps.count.outputs.count >= 3' }, { dependsOn: ['count'] }),
        step('yes', 'no-op'),
        step('no', 'no-op'),
      ],
      { connections: connections('enough:true->yes', 'enough:false->no') },
    );

    it('is false under the new rules: the decider takes its false branch', async () => {
      const { outcome, ctx } = await runUnder(ENGINE_RULES, definition);
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.equal(ctx.steps.no.status, 'completed');
      assert.equal(ctx.steps.yes.status, 'skipped');
    });

    it('fails the step with EXPRESSION_ERROR in a run of rules 3, as it did', async () => {
      const { outcome, ctx } = await runUnder(OLD, definition);
      assert.equal(outcome.status, 'failed');
      assert.equal(ctx.steps.enough.error?.code, 'EXPRESSION_ERROR');
    });

    it('reads null as 0 in a run of rules 3 (null >= 0 held), false under the new rules', async () => {
      const nullish = doc([
        trigger(),
        step('check', 'conditional', { expression: 'workflow.inputs.n >= 0' }, { dependsOn: ['start'] }),
        step('yes', 'no-op'),
        step('no', 'no-op'),
      ]);
      const withPorts = { ...nullish, connections: connections('check:true->yes', 'check:false->no') };
      const old = await runUnder(OLD, withPorts, {}, { n: null });
      assert.equal(old.ctx.steps.yes.status, 'completed');
      const now = await runUnder(ENGINE_RULES, withPorts, {}, { n: null });
      assert.equal(now.ctx.steps.no.status, 'completed');
    });

    it('outside a run (validation, an activity) the evaluator follows the newest rules; equality is unchanged', () => {
      const scope = { workflow: { inputs: { n: null } } };
      for (const source of [
        'workflow.inputs.missing < 3',
        '3 > workflow.inputs.missing',
        'workflow.inputs.n <= 0',
        '0 < workflow.inputs.n',
      ])
        assert.equal(evaluateExpression(source, scope), false, source);
      assert.equal(evaluateExpression('workflow.inputs.n == workflow.inputs.missing', scope), true);
      assert.equal(evaluateExpression("'2' < 3", scope), true);
    });
  });

  describe('split-in-batches fed {items: [...]} with a loop body that runs once per batch', () => {
    //   start ─▶ load ─▶ split ─loop─▶ work (once per batch) ─┐
    //                      ▲───────────────────────────────────┘
    //                      └─done─▶ finish
    const ten = Array.from({ length: 10 }, (_, n) => ({ n }));
    const definition = doc(
      [
        trigger(),
        step('load', 'code-exec', { code: 'return { items: [] };' }, { dependsOn: ['start'] }),
        step('split', 'split-in-batches', { batchSize: 3 }, { dependsOn: ['load'] }),
        step('work', 'code-exec', { mode: 'all', code: 'return { size: $items.length };' }),
        step('finish', 'no-op'),
      ],
      { connections: connections('split:loop->work', 'work->split', 'split:done->finish') },
    );
    const fakes: Fakes = {
      activities: {
        'code-exec': (call: ActivityCall): PluginResult =>
          call.stepId === 'load'
            ? { status: 'success', outputs: { items: ten } }
            : { status: 'success', outputs: { size: call.items.length } },
      },
    };

    it('reports the 10 items and totalProcessed: 10 under the new rules', async () => {
      const { outcome, ctx } = await runUnder(ENGINE_RULES, definition, fakes);
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.equal(ctx.steps.work.run, 4);
      assert.deepEqual(ctx.steps.finish.items, ten);
      assert.equal(ctx.steps.split.outputs.totalProcessed, 10);
    });

    it('reports the 4 summaries (no totalProcessed) in a run of rules 3, as it did', async () => {
      const { outcome, ctx } = await runUnder(OLD, definition, fakes);
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.deepEqual(ctx.steps.finish.items, [{ size: 3 }, { size: 3 }, { size: 3 }, { size: 1 }]);
      assert.equal(ctx.steps.split.outputs.totalProcessed, undefined);
    });
  });

  describe('outputProjection on a forEach step', () => {
    //   start ─▶ each (forEach over [1, 2]; outputProjection: [id])
    const definition = doc(
      [
        trigger(),
        step(
          'each',
          'http-request',
          { url: 'https://x/${{ inputs.item }}' },
          { dependsOn: ['start'], forEach: { expression: 'workflow.inputs.list' }, outputProjection: ['id'] },
        ),
      ],
      {},
    );
    const fakes: Fakes = {
      activities: { 'http-request': (call) => ({ status: 'success', outputs: { id: call.inputs.item, noise: 'x' } }) },
    };

    it("trims each iteration's output under the new rules: outputs.items holds the projected items", async () => {
      const { outcome, ctx } = await runUnder(ENGINE_RULES, definition, fakes, { list: [1, 2] });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.deepEqual(ctx.steps.each.outputs, { items: [{ id: 1 }, { id: 2 }], count: 2, failed: 0 });
    });

    it('trims the aggregate in a run of rules 3, as it did (outputs.items gone)', async () => {
      const { ctx } = await runUnder(OLD, definition, fakes, { list: [1, 2] });
      assert.deepEqual(ctx.steps.each.outputs, {});
    });
  });

  describe('error_handling.retry_policy on a forEach step', () => {
    // Element 2 answers a retryable failure twice, then succeeds; element 3 fails marked not retryable.
    const fakes = (): Fakes & { tries: Record<number, number> } => {
      const tries: Record<number, number> = {};
      return {
        tries,
        activities: {
          'http-request': (call): PluginResult => {
            const n = call.inputs.item as number;
            tries[n] = (tries[n] ?? 0) + 1;
            if (n === 2 && tries[n] < 3) return { status: 'failure', error: { code: 'HTTP_5XX', message: 'busy', retryable: true } };
            if (n === 3) return { status: 'failure', error: { code: 'HTTP_4XX', message: 'no', retryable: false } };
            return { status: 'success', outputs: { n } };
          },
        },
      };
    };
    const definition = (parallel: boolean) =>
      doc([
        trigger(),
        step(
          'each',
          'http-request',
          { url: 'https://x' },
          {
            dependsOn: ['start'],
            forEach: { expression: 'workflow.inputs.list', parallel },
            error_handling: { retry_policy: { max_attempts: 3, initial_interval: '2s', backoff_strategy: 'exponential' } },
          },
        ),
      ]);

    it('in parallel: each iteration retried on its own (durable timers), a non-retryable one not, its slot {}', async () => {
      const f = fakes();
      const { outcome, ctx, calls, sleeps } = await runUnder(ENGINE_RULES, definition(true), f, { list: [1, 2, 3] });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.deepEqual(f.tries, { 1: 1, 2: 3, 3: 1 });
      assert.deepEqual(ctx.steps.each.outputs, { items: [{ n: 1 }, { n: 2 }, {}], count: 3, failed: 1 });
      // The engine retries: one attempt per activity call, the backoff on the workflow's timers.
      assert.ok(calls.every((call) => call.retryPolicy?.maximumAttempts === 1));
      assert.deepEqual(sleeps, [2000, 4000]);
      assert.deepEqual(
        (ctx.steps.each.attempts ?? []).map((a) => [a.itemIndex, a.attempt, a.status, a.error?.code]),
        [
          [1, 1, 'failed', 'HTTP_5XX'],
          [1, 2, 'failed', 'HTTP_5XX'],
          [1, 3, 'completed', undefined],
        ],
      );
    });

    it('an iteration that used up its retries is absorbed as {} in parallel, the others survive', async () => {
      const always: Fakes = {
        activities: {
          'http-request': (call): PluginResult =>
            call.inputs.item === 1
              ? { status: 'failure', error: { code: 'HTTP_5XX', message: 'down', retryable: true } }
              : { status: 'success', outputs: { n: call.inputs.item } },
        },
      };
      const { outcome, ctx, calls } = await runUnder(ENGINE_RULES, definition(true), always, { list: [1, 2] });
      assert.equal(outcome.status, 'completed');
      assert.equal(calls.filter((call) => call.inputs.item === 1).length, 3);
      assert.deepEqual(ctx.steps.each.outputs, { items: [{}, { n: 2 }], count: 2, failed: 1 });
    });

    it('sequentially: the retried iteration succeeds and the run goes on to the non-retryable one, which fails the step', async () => {
      const f = fakes();
      const { outcome, ctx } = await runUnder(ENGINE_RULES, definition(false), f, { list: [1, 2, 3] });
      assert.equal(outcome.status, 'failed');
      assert.deepEqual(f.tries, { 1: 1, 2: 3, 3: 1 });
      assert.equal(ctx.steps.each.error?.code, 'HTTP_4XX');
    });

    it('in a run of rules 3 a failure result is not retried by the engine, as before', async () => {
      const f = fakes();
      const { ctx, calls, sleeps } = await runUnder(OLD, definition(true), f, { list: [1, 2, 3] });
      assert.deepEqual(f.tries, { 1: 1, 2: 1, 3: 1 });
      assert.deepEqual(ctx.steps.each.outputs, { items: [{ n: 1 }, {}, {}], count: 3, failed: 2 });
      // Temporal retried thrown failures itself there: the policy went with the activity.
      assert.ok(calls.every((call) => call.retryPolicy?.maximumAttempts === 3));
      assert.deepEqual(sleeps, []);
    });
  });
});
