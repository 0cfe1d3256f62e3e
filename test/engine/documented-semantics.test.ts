/**
 * Engine semantics the compatible engine documents clearly (issue 18 §2):
 * a sequential forEach with continueOnError that ends failed, the reduce
 * accumulator as a named variable, and implicit fan-out only from a single
 * producer. Pure runtime with fake effects.
 */
import assert from 'node:assert/strict';
import { startExecution, validateDefinition, type ActivityCall, type PluginResult, type RuntimeEffects } from '../../workflows/engine';
import { connections, executionInput, trigger } from '../support/definitions';

type Fake = (call: ActivityCall) => PluginResult;

async function run(doc: Record<string, unknown>, activities: Record<string, Fake>) {
  let clock = Date.parse('2026-01-01T00:00:00Z');
  const calls: ActivityCall[] = [];
  const effects: RuntimeEffects = {
    now: () => (clock += 1),
    uuid: () => 'uuid',
    callActivity: (call) => {
      calls.push(call);
      return Promise.resolve(activities[call.pluginType](call));
    },
    sleep: () => Promise.resolve(),
    waitForSignal: () => Promise.resolve({ timedOut: true }),
    runChild: () => Promise.reject(new Error('no children here')),
    log: () => undefined,
    onEvent: () => undefined,
  };
  const input = executionInput(doc, { executionId: 'exec_1', workflowId: 'wf_1', receivedAt: '2026-01-01T00:00:00Z' });
  const execution = startExecution(input, {}, effects);
  const outcome = await execution.done;
  return { outcome, calls, ctx: execution.ctx };
}

const manual = trigger();
const echo: Fake = (call) =>
  call.inputs.item === 'bad'
    ? { status: 'failure', error: { code: 'HTTP_500', message: 'upstream broke' } }
    : { status: 'success', outputs: { got: call.inputs.item } };

describe('documented semantics (engine)', () => {
  describe('sequential forEach with continueOnError', () => {
    //   start ─▶ each ─(failed)─▶ after
    const definition = {
      variables: { list: { initialValue: ['a', 'bad', 'c'] } },
      steps: [
        manual,
        {
          id: 'each',
          type: 'module',
          pluginType: 'http-request',
          config: { url: 'https://x' },
          dependsOn: ['start'],
          forEach: { expression: 'variables.list' },
          errorHandling: { continueOnError: true },
        },
        { id: 'after', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['each'] },
      ],
      outputs: { status: '${{ steps.each.status }}', out: '${{ steps.each.outputs }}', code: '${{ steps.each.error.code }}' },
    };

    it('runs every iteration, then ends the step failed with failed: n in its output', async () => {
      const { outcome, calls, ctx } = await run(definition, { 'http-request': echo });
      assert.equal(calls.length, 3);
      assert.equal(outcome.status, 'completed');
      assert.equal(outcome.outputs.status, 'failed');
      assert.deepEqual(outcome.outputs.out, { items: [{ got: 'a' }, {}, { got: 'c' }], count: 3, failed: 1 });
      assert.equal(outcome.outputs.code, 'HTTP_500');
      assert.equal(ctx.steps.each.status, 'failed');
      // continueOnError: the successor still runs, through the failed edge.
      assert.equal(ctx.steps.after.status, 'completed');
    });

    it('routes through a fallbackStep (failure edge) instead of the success path', async () => {
      //   start ─▶ each ─ok─▶ good
      //              └─fallback─▶ rescue
      const { outcome, ctx } = await run(
        {
          ...definition,
          steps: [
            manual,
            { ...definition.steps[1], errorHandling: { continueOnError: true, fallbackStep: 'rescue' } },
            { id: 'good', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['each'] },
            { id: 'rescue', type: 'module', pluginType: 'no-op', config: {} },
          ],
          outputs: {},
        },
        { 'http-request': echo },
      );
      assert.equal(outcome.status, 'completed');
      assert.equal(ctx.steps.rescue.status, 'completed');
      assert.equal(ctx.steps.good.status, 'skipped');
    });

    it('still completes when every iteration succeeded', async () => {
      const { ctx } = await run({ ...definition, variables: { list: { initialValue: ['a', 'c'] } } }, { 'http-request': echo });
      assert.equal(ctx.steps.each.status, 'completed');
      assert.deepEqual(ctx.steps.each.outputs, { items: [{ got: 'a' }, { got: 'c' }], count: 2, failed: 0 });
    });
  });

  it('forEach.reduce.accumulator names the variable each iteration reads and replaces', async () => {
    const seen: unknown[] = [];
    const sum: Fake = (call) => {
      const total = (call.inputs.total as { sum: number }).sum;
      seen.push(total);
      return { status: 'success', outputs: { sum: total + (call.inputs.item as number) } };
    };
    const { outcome } = await run(
      {
        variables: { list: { initialValue: [1, 2, 3] } },
        steps: [
          manual,
          {
            id: 'each',
            type: 'module',
            pluginType: 'http-request',
            config: { url: 'https://x' },
            dependsOn: ['start'],
            forEach: { expression: 'variables.list', reduce: { initialValue: { sum: 10 }, accumulator: 'total' } },
          },
        ],
        outputs: { result: '${{ steps.each.outputs.result }}', variable: '${{ variables.total }}' },
      },
      { 'http-request': sum },
    );
    assert.deepEqual(seen, [10, 11, 13]);
    assert.deepEqual(outcome.outputs, { result: { sum: 16 }, variable: { sum: 16 } });
  });

  describe('implicit fan-out follows the single-producer rule', () => {
    const items = [{ n: 1 }, { n: 2 }];
    const producer: Fake = () => ({ status: 'success', items });
    const consumer: Fake = (call) => ({ status: 'success', outputs: { count: call.items.length } });

    it('fans out per item when exactly one edge carries the items', async () => {
      //   start ─▶ a ─▶ use
      const { calls } = await run(
        {
          steps: [
            manual,
            { id: 'a', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
            { id: 'use', type: 'module', pluginType: 'http-request', config: { url: 'https://x' }, dependsOn: ['a'] },
          ],
        },
        { 'code-exec': producer, 'http-request': consumer },
      );
      assert.equal(calls.filter((call) => call.pluginType === 'http-request').length, 2);
    });

    it('calls once with the concatenated items when several edges feed the step (a join)', async () => {
      //   start ─▶ a ─┐
      //        └─▶ b ─┴▶ use
      const { calls } = await run(
        {
          steps: [
            manual,
            { id: 'a', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
            { id: 'b', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
            { id: 'use', type: 'module', pluginType: 'http-request', config: { url: 'https://x' } },
          ],
          connections: connections('a->use', 'b->use'),
        },
        { 'code-exec': producer, 'http-request': consumer },
      );
      const uses = calls.filter((call) => call.pluginType === 'http-request');
      assert.equal(uses.length, 1);
      assert.equal(uses[0].items.length, 4);
    });

    it('still fans out a join when the step asks for it (metadata.fanOutPerItem: true)', async () => {
      const { calls } = await run(
        {
          steps: [
            manual,
            { id: 'a', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
            { id: 'b', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
            { id: 'use', type: 'module', pluginType: 'http-request', config: { url: 'https://x' }, metadata: { fanOutPerItem: true } },
          ],
          connections: connections('a->use', 'b->use'),
        },
        { 'code-exec': producer, 'http-request': consumer },
      );
      assert.equal(calls.filter((call) => call.pluginType === 'http-request').length, 4);
    });
  });

  describe('publish-time checks', () => {
    const withStep = (extra: Record<string, unknown>) => ({
      name: 'x',
      steps: [
        manual,
        { id: 'a', type: 'module', pluginType: 'http-request', config: { url: 'https://x' }, dependsOn: ['start'], ...extra },
      ],
    });
    const messages = (doc: unknown) => validateDefinition(doc).errors.map((e) => `${e.path}: ${e.message}`);

    it('refuses a reduce accumulator that is an expression rather than a variable name', () => {
      assert.deepEqual(messages(withStep({ forEach: { expression: 'variables.l', reduce: { accumulator: 'total' } } })), []);
      assert.match(
        messages(withStep({ forEach: { expression: 'variables.l', reduce: { accumulator: 'acc + result.got' } } })).join('\n'),
        /forEach\/reduce\/accumulator: must name the variable/,
      );
    });

    it('accepts the recovery triggers and checks their scope', () => {
      const recovery = (config: Record<string, unknown>, pluginType = 'on-error') => ({
        name: 'x',
        steps: [
          { id: 'onErr', type: 'trigger', pluginType, config },
          { id: 'b', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['onErr'] },
        ],
      });
      assert.deepEqual(messages(recovery({ scope: 'step' })), []);
      assert.deepEqual(messages(recovery({ listenFor: 'workflow' })), []);
      assert.deepEqual(messages(recovery({ workflow_id: 'billing' }, 'execution-failed-trigger')), []);
      assert.match(messages(recovery({ scope: 'everything' })).join('\n'), /scope: must be one of/);
    });
  });
});
