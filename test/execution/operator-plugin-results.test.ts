/**
 * What the worker accepts from an operator plugin's `execute`, by kind: a
 * decider names its ports, a two-phase wait names its signal, and a plugin
 * that is not of that kind may not return what the kind returns. Anything
 * else fails the step with PLUGIN_RESULT_INVALID, without retries.
 */
import assert from 'node:assert/strict';
import { engineDescriptor } from '../../activities/plugins/operator/descriptor-format';
import type { OperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import type {
  PluginActivate,
  PluginDescriptorExport,
  PluginExecute,
  PluginExecuteResult,
} from '../../activities/plugins/operator/plugin-api';
import { TEST_EGRESS } from '../support/egress';
import { operatorPluginRun } from '../../activities/plugins/operator/run-operator-plugin';
import { runTriggerPlugin } from '../../activities/plugins/operator/run-trigger-plugin';
import { failure, pluginContext } from '../support/plugin-calls';

const exported = (extra: Partial<PluginDescriptorExport>): PluginDescriptorExport => ({
  name: 'p',
  version: '1.0.0',
  kind: 'module',
  description: 'd',
  configSchema: { type: 'object', properties: {} },
  ...extra,
});

/** One plugin returning `result`; the context it was called with lands in `seen`. */
function loaded(extra: Partial<PluginDescriptorExport>, result: PluginExecuteResult | (() => PluginExecuteResult)) {
  const seen: Array<Parameters<PluginExecute>[0]> = [];
  const execute: PluginExecute = (context) => {
    seen.push(context);
    return typeof result === 'function' ? result() : result;
  };
  const descriptor = engineDescriptor(exported(extra));
  const plugins: OperatorPlugins = { catalog: { p: descriptor }, byName: new Map([['p', { entry: './p', descriptor, execute }]]) };
  const call = (extraCall: Parameters<typeof pluginContext>[1] = {}) => {
    const { ctx } = pluginContext({}, { pluginType: 'p', pluginVersion: '1.0.0', ...extraCall });
    return operatorPluginRun(plugins, ctx.call)!(ctx);
  };
  return { call, seen };
}

async function invalid(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const refused = await failure(promise);
  assert.equal(refused.type, 'PLUGIN_RESULT_INVALID');
  assert.equal(refused.nonRetryable, true);
  assert.match(refused.message, pattern);
}

describe('operator plugins: results by kind', () => {
  describe('decider', () => {
    const decider = { kind: 'decider' as const, outputPorts: ['yes', 'no'] };

    it('returns activePorts among its ports, with outputs', async () => {
      assert.deepEqual(await loaded(decider, { activePorts: ['no'], outputs: { why: 'x' } }).call(), {
        status: 'success',
        outputs: { why: 'x' },
        activePorts: ['no'],
      });
    });

    it('is refused without a port, with a port it does not declare, or with items', async () => {
      await invalid(loaded(decider, { outputs: {} }).call(), /no activePorts: a decider names the port\(s\) its items go to/);
      await invalid(loaded(decider, { activePorts: [] }).call(), /no activePorts/);
      await invalid(loaded(decider, { activePorts: ['maybe'] }).call(), /activePorts outside its output ports \(default, yes, no\)/);
      await invalid(loaded(decider, { activePorts: ['yes'], items: [{}] }).call(), /items: a decider routes the items it got/);
    });
  });

  describe('two-phase wait', () => {
    const waits = { twoPhaseWait: true };

    it('returns its outputs and the wait', async () => {
      assert.deepEqual(await loaded(waits, { outputs: { id: 1 }, wait: { signalName: 's', correlationKey: 'k' } }).call(), {
        status: 'success',
        outputs: { id: 1 },
        wait: { signalName: 's', correlationKey: 'k' },
      });
    });

    it('is refused without a wait, or with items or activePorts; a plain module may not return a wait', async () => {
      await invalid(loaded(waits, { outputs: {} }).call(), /no wait: a two-phase wait returns wait: \{signalName, correlationKey\?\}/);
      await invalid(loaded(waits, { wait: { signalName: 's' }, activePorts: ['timeout'] }).call(), /items or activePorts/);
      await invalid(loaded({}, { wait: { signalName: 's' } }).call(), /a wait, but its descriptor does not say twoPhaseWait: true/);
    });
  });

  describe('per-step state', () => {
    const stateful = { nodeState: true };

    it('gets a copy of the state its step left, and returns the next as the nodeState the engine keeps', async () => {
      const { call, seen } = loaded(stateful, { outputs: {}, state: { cursor: 'c2' } });
      const previous = { cursor: 'c1', nested: { n: 1 } };
      assert.deepEqual(await call({ nodeState: previous }), { status: 'success', outputs: {}, nodeState: { cursor: 'c2' } });
      assert.deepEqual(seen[0].state, previous);
      assert.notEqual(seen[0].state, previous, 'a copy');
      assert.deepEqual(await loaded(stateful, { state: null }).call(), { status: 'success', nodeState: null });
      const first = loaded(stateful, {});
      assert.deepEqual(await first.call(), { status: 'success' });
      assert.equal('state' in first.seen[0], false, 'no state on the first call');
    });

    it('is refused when not an object, over the step output cap, or from a plugin without nodeState (which never gets one)', async () => {
      await invalid(loaded(stateful, { state: [1] as never }).call(), /a state that is neither an object nor null/);
      const big = await failure(loaded(stateful, { state: { text: 'x'.repeat(100) } }).call({ maxOutputBytes: 50 }));
      assert.equal(big.type, 'PLUGIN_STATE_TOO_LARGE');
      assert.equal(big.nonRetryable, true);
      const plain = loaded({}, { state: {} });
      await invalid(plain.call({ nodeState: { x: 1 } }), /a state, but its descriptor does not say nodeState: true/);
      assert.equal('state' in plain.seen[0], false);
    });
  });

  describe('trigger', () => {
    const activated = (activate: PluginActivate, deactivate?: () => void) => {
      const descriptor = engineDescriptor(exported({ kind: 'trigger' }));
      return (phase: 'activate' | 'deactivate', state?: Record<string, unknown>) =>
        runTriggerPlugin({
          plugin: { entry: './t', descriptor, trigger: { activate, deactivate } },
          request: {
            phase,
            organizationId: '1',
            workflowId: 'wf_1',
            aliasName: 'live',
            revision: 1,
            triggerId: 't',
            pluginType: 'p',
            startUrl: 'https://api.test/workflows/webhooks/tok',
            ...(state ? { state } : {}),
          },
          config: { a: 1 },
          secrets: {},
          egress: TEST_EGRESS,
          signal: new AbortController().signal,
          log: () => undefined,
        });
    };

    it('activate gets the config and the start URL, and may keep a small state; deactivate gets it back', async () => {
      const seen: unknown[] = [];
      const run = activated(
        (context) => {
          seen.push([context.config, context.startUrl, context.trigger.aliasName]);
          return { state: { id: 's-1' } };
        },
        () => undefined,
      );
      assert.deepEqual(await run('activate'), { state: { id: 's-1' } });
      assert.deepEqual(seen, [[{ a: 1 }, 'https://api.test/workflows/webhooks/tok', 'live']]);
      assert.deepEqual(await run('deactivate', { id: 's-1' }), {});
      assert.deepEqual(await activated(() => undefined)('deactivate'), {}, 'no deactivate: nothing to undo');
    });

    it('refuses what activate returns unless it is nothing or {state} of at most 16 KiB', async () => {
      await invalid(activated(() => ({ state: 'x' }) as never)('activate'), /a state that is not an object from activate/);
      await invalid(activated(() => ({ other: 1 }) as never)('activate'), /something other than \{state\?\}/);
      await invalid(activated(() => ({ state: { text: 'x'.repeat(17_000) } }))('activate'), /a state of \d+ bytes \(at most 16384\)/);
    });
  });
});
