/**
 * The kinds an operator's plugin may declare, in the pure engine (fake
 * effects): validated and pinned with the catalog as the API does, then run
 * by the workflow's runtime knowing them only by their pins.
 */
import assert from 'node:assert/strict';
import { PINNED_PLUGINS_KEY, validateDefinition, type PluginDescriptor } from '../../workflows/engine';
import { connections, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

const base = { description: 'd', inline: false, inputPorts: ['default'], configSchema: { properties: {} } };

const gate: PluginDescriptor = {
  ...base,
  name: 'gate',
  version: '1.0.0',
  kind: 'decider',
  executeMode: 'each',
  outputPorts: ['go', 'stop'],
};

const manual = trigger();

describe('engine: operator plugin kinds', () => {
  describe('decider', () => {
    //   start ─▶ list ─▶ gate ─go───▶ yes
    //                       └stop──▶ no
    const routed = {
      steps: [
        manual,
        { id: 'list', type: 'module', pluginType: 'code-exec', config: { code: 'x' }, dependsOn: ['start'] },
        { id: 'gate', type: 'decider', pluginType: 'gate', config: {}, dependsOn: ['list'] },
        { id: 'yes', type: 'module', pluginType: 'no-op', config: {} },
        { id: 'no', type: 'module', pluginType: 'no-op', config: {} },
      ],
      connections: connections('gate:go->yes', 'gate:stop->no'),
    };

    it('is pinned with its kind; a step of another type and an undeclared port are refused at publish', () => {
      const ok = validateDefinition({ name: 'n', ...routed }, { plugins: { gate } });
      assert.deepEqual(ok.errors, []);
      assert.deepEqual(ok.definition?.[PINNED_PLUGINS_KEY], { gate: { version: '1.0.0', executeMode: 'each', kind: 'decider' } });
      const asModule = validateDefinition(
        { name: 'n', ...routed, steps: routed.steps.map((s) => (s.id === 'gate' ? { ...s, type: 'module' } : s)) },
        { plugins: { gate } },
      );
      assert.match(JSON.stringify(asModule.errors), /plugin gate is a decider; it cannot run in a step of type module/);
      const unknownPort = validateDefinition(
        { name: 'n', ...routed, connections: connections('gate:maybe->yes', 'gate:stop->no') },
        { plugins: { gate } },
      );
      assert.match(JSON.stringify(unknownPort.errors), /maybe/);
    });

    it('routes each item to the port its call answers, passing the items on (its outputs: what it said, and the port)', async () => {
      const { outcome, ctx, calls } = await run(
        routed,
        {},
        {
          plugins: { gate },
          activities: {
            'code-exec': () => ({ status: 'success', items: [{ n: 1 }, { n: 2 }, { n: 3 }] }),
            gate: (call) => ({
              status: 'success',
              outputs: { why: `n=${String(call.item?.n)}` },
              activePorts: [call.item!.n === 2 ? 'stop' : 'go'],
            }),
          },
        },
      );
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.equal(calls.filter((call) => call.pluginType === 'gate').length, 3, 'one call per item (each mode)');
      assert.deepEqual(ctx.steps.yes.items, [{ n: 1 }, { n: 3 }]);
      assert.deepEqual(ctx.steps.no.items, [{ n: 2 }]);
      assert.deepEqual(ctx.steps.gate.items, [{ n: 1 }, { n: 2 }, { n: 3 }]);
      assert.deepEqual(ctx.steps.gate.outputs, { why: 'n=1', matchedPort: 'go', activePorts: ['go'] });
    });

    it('fails the step PLUGIN_RESULT_INVALID when its call names no port', async () => {
      const { outcome, ctx } = await run(
        routed,
        {},
        {
          plugins: { gate },
          activities: { 'code-exec': () => ({ status: 'success', items: [{ n: 1 }] }), gate: () => ({ status: 'success', outputs: {} }) },
        },
      );
      assert.equal(outcome.status, 'failed');
      assert.equal(ctx.steps.gate.error?.code, 'PLUGIN_RESULT_INVALID');
      assert.match(ctx.steps.gate.error?.message ?? '', /decider "gate" answered no port/);
    });
  });
});
