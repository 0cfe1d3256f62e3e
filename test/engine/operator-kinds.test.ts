/**
 * The kinds an operator's plugin may declare, in the pure engine (fake
 * effects): validated and pinned with the catalog as the API does, then run
 * by the workflow's runtime knowing them only by their pins.
 */
import assert from 'node:assert/strict';
import { PINNED_PLUGINS_KEY, TWO_PHASE_WAIT_SETTINGS, validateDefinition, type PluginDescriptor } from '../../workflows/engine';
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

const ask: PluginDescriptor = {
  ...base,
  name: 'ask',
  version: '2.0.0',
  kind: 'module',
  executeMode: 'each',
  twoPhaseWait: true,
  outputPorts: ['default', 'timeout'],
  configSchema: { properties: { question: { type: 'string' }, ...TWO_PHASE_WAIT_SETTINGS } },
};

const feed: PluginDescriptor = {
  ...base,
  name: 'feed',
  version: '0.3.0',
  kind: 'module',
  executeMode: 'all',
  nodeState: true,
  inputPorts: ['default', 'callback'],
  outputPorts: ['default'],
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

  describe('two-phase wait', () => {
    //   start ─▶ q ─default─▶ after (reads signal.payload)
    //             └timeout─▶ late
    const asking = (config: Record<string, unknown>) => ({
      steps: [
        manual,
        { id: 'q', type: 'module', pluginType: 'ask', config: { question: 'go?', ...config }, dependsOn: ['start'] },
        { id: 'after', type: 'module', pluginType: 'set-variable', config: { path: 'answer', value: '${{ signal.payload.answer }}' } },
        { id: 'late', type: 'module', pluginType: 'no-op', config: {} },
      ],
      connections: connections('q:default->after', 'q:timeout->late'),
      outputs: { answer: '${{ variables.answer }}' },
    });
    const sideEffect = {
      ask: () => ({
        status: 'success' as const,
        outputs: { messageId: 'm-1', answer: 'unset' },
        wait: { signalName: 'answered', correlationKey: 'k-1' },
      }),
    };

    it('is pinned as a two-phase wait', () => {
      const ok = validateDefinition({ name: 'n', ...asking({ timeout: '1h' }) }, { plugins: { ask } });
      assert.deepEqual(ok.errors, []);
      assert.deepEqual(ok.definition?.[PINNED_PLUGINS_KEY], { ask: { version: '2.0.0', executeMode: 'each', twoPhaseWait: true } });
      // As the compatible engine's published waits are written: type wait, or type module.
      const doc = asking({ timeout: '1h' });
      const asWait = { ...doc, steps: doc.steps.map((s) => (s.id === 'q' ? { ...s, type: 'wait' } : s)) };
      assert.deepEqual(validateDefinition({ name: 'n', ...asWait }, { plugins: { ask } }).errors, []);
    });

    it('runs in a step of type wait too', async () => {
      const doc = asking({ timeout: '1h' });
      const { outcome, waits } = await run(
        { ...doc, steps: doc.steps.map((s) => (s.id === 'q' ? { ...s, type: 'wait' } : s)) },
        {},
        { plugins: { ask }, activities: sideEffect, signals: () => ({ timedOut: false, name: 'answered', payload: { answer: 'ok' } }) },
      );
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.deepEqual(outcome.outputs, { answer: 'ok' });
      assert.equal(waits[0].correlationKey, 'k-1');
    });

    it('parks after its side effect on the signal the call named; the output is the answer over what the call returned', async () => {
      const { outcome, ctx, calls, waits, logs } = await run(
        asking({ timeout: '2h' }),
        {},
        {
          plugins: { ask },
          activities: sideEffect,
          signals: () => ({
            timedOut: false,
            name: 'answered',
            payload: { answer: 'yes' },
            receivedAt: '2026-01-01T00:01:00Z',
            signalId: 'sig_1',
          }),
        },
      );
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.equal(calls.length, 1);
      assert.deepEqual(waits, [{ stepId: 'q', signalNames: ['answered'], correlationKey: 'k-1', timeoutMs: 7_200_000 }]);
      assert.deepEqual(ctx.steps.q.outputs, {
        name: 'answered',
        payload: { answer: 'yes' },
        receivedAt: '2026-01-01T00:01:00Z',
        signalId: 'sig_1',
        timedOut: false,
        messageId: 'm-1',
        answer: 'unset',
      });
      assert.deepEqual(outcome.outputs, { answer: 'yes' }, 'the next step reads signal.payload');
      // The payload's `answer` is hidden by the side effect's: said on the step's log, with where to read it.
      assert.ok(
        logs.some((line) => line.level === 'warn' && line.message.includes('steps.q.outputs.payload.answer')),
        JSON.stringify(logs),
      );
      assert.equal(ctx.steps.late.status, 'skipped');
    });

    it('times out as signal-wait does: SIGNAL_WAIT_TIMEOUT by default, through the timeout port with onTimeout continue', async () => {
      const failing = await run(asking({ timeout: '1s' }), {}, { plugins: { ask }, activities: sideEffect });
      assert.equal(failing.outcome.status, 'failed');
      assert.equal(failing.ctx.steps.q.error?.code, 'SIGNAL_WAIT_TIMEOUT');
      const routed = await run(
        asking({ timeout: '1s', onTimeout: 'continue', defaultValue: { answer: 'no' } }),
        {},
        { plugins: { ask }, activities: sideEffect },
      );
      assert.equal(routed.outcome.status, 'completed', JSON.stringify(routed.outcome));
      assert.equal(routed.ctx.steps.late.status, 'completed');
      assert.equal(routed.ctx.steps.after.status, 'skipped');
      assert.deepEqual(routed.ctx.steps.q.outputs, {
        name: null,
        payload: { answer: 'no' },
        receivedAt: null,
        signalId: null,
        timedOut: true,
        messageId: 'm-1',
        answer: 'unset',
      });
    });

    it('fails PLUGIN_RESULT_INVALID, without waiting, when the call names no signal or a bad one', async () => {
      for (const wait of [undefined, { signalName: '' }, { signalName: 'x'.repeat(201) }, { signalName: 'ok', correlationKey: 7 }]) {
        const { outcome, ctx, waits } = await run(
          asking({}),
          {},
          {
            plugins: { ask },
            activities: { ask: () => ({ status: 'success', outputs: {}, ...(wait ? { wait: wait as never } : {}) }) },
          },
        );
        assert.equal(outcome.status, 'failed', JSON.stringify(wait));
        assert.equal(ctx.steps.q.error?.code, 'PLUGIN_RESULT_INVALID');
        assert.deepEqual(waits, []);
      }
    });
  });

  describe('per-step state (nodeState)', () => {
    it('is pinned with its state', () => {
      const ok = validateDefinition(
        { name: 'n', steps: [manual, { id: 'f', type: 'module', pluginType: 'feed', config: {}, dependsOn: ['start'] }] },
        { plugins: { feed } },
      );
      assert.deepEqual(ok.definition?.[PINNED_PLUGINS_KEY], { feed: { version: '0.3.0', executeMode: 'all', nodeState: true } });
    });

    it('hands every call of the step the state the previous one returned, however it came in (here: not by a back-edge)', async () => {
      //   start ─▶ count ─▶ f ─▶ more ─true─▶ count (back-edge): f runs again each round through a forward edge
      const loop = (calls: number) => ({
        variables: { i: { initialValue: 0 } },
        steps: [
          manual,
          {
            id: 'count',
            type: 'module',
            pluginType: 'set-variable',
            config: { path: 'i', value: '${{ variables.i + 1 }}' },
            dependsOn: ['start'],
          },
          { id: 'f', type: 'module', pluginType: 'feed', config: {}, dependsOn: ['count'] },
          { id: 'more', type: 'decider', pluginType: 'conditional', config: { expression: `variables.i < ${calls}` }, dependsOn: ['f'] },
        ],
        connections: connections('more:true->count'),
      });
      const counting = (call: { nodeState?: Record<string, unknown> }) => {
        const n = typeof call.nodeState?.n === 'number' ? call.nodeState.n + 1 : 1;
        return { status: 'success' as const, outputs: { n }, nodeState: { n } };
      };
      const { outcome, calls, ctx } = await run(loop(3), {}, { plugins: { feed }, activities: { feed: counting } });
      assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
      assert.deepEqual(
        calls.map((call) => call.nodeState ?? null),
        [null, { n: 1 }, { n: 2 }],
      );
      assert.deepEqual(ctx.steps.f.outputs, { n: 3 });
      assert.deepEqual(ctx.nodeContext.f, { n: 3 });

      // A built-in with state (paginated-fetch) keeps its place only across re-entries through a back-edge: unchanged.
      const builtIn = loop(2);
      builtIn.steps[2] = {
        id: 'f',
        type: 'module',
        pluginType: 'paginated-fetch',
        config: { url: 'https://x.test' },
        dependsOn: ['count'],
      };
      const pages = await run(
        builtIn,
        {},
        { activities: { 'paginated-fetch': () => ({ status: 'success', outputs: {}, nodeState: { page: 2 } }) } },
      );
      assert.deepEqual(
        pages.calls.map((call) => call.nodeState ?? null),
        [null, null],
      );
    });

    it('clears the state when a call returns null', async () => {
      //   start ─▶ f ─▶ count ─▶ more ─true─▶ f:callback (back-edge); the second call clears
      let runs = 0;
      const { calls } = await run(
        {
          variables: { i: { initialValue: 0 } },
          steps: [
            manual,
            { id: 'f', type: 'module', pluginType: 'feed', config: {}, dependsOn: ['start'] },
            { id: 'count', type: 'module', pluginType: 'set-variable', config: { path: 'i', value: '${{ variables.i + 1 }}' } },
            { id: 'more', type: 'decider', pluginType: 'conditional', config: { expression: 'variables.i < 3' } },
          ],
          connections: connections('f->count', 'count->more', 'more:true->f:callback'),
        },
        {},
        {
          plugins: { feed },
          activities: {
            feed: () => {
              runs += 1;
              return { status: 'success', outputs: {}, nodeState: runs === 2 ? null : { run: runs } };
            },
          },
        },
      );
      assert.deepEqual(
        calls.map((call) => call.nodeState ?? null),
        [null, { run: 1 }, null],
      );
    });
  });
});
