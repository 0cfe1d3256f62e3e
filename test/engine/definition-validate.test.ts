import assert from 'node:assert/strict';
import { findPlugin, validateDefinition, type PluginDescriptor } from '../../workflows/engine';
import { definition } from '../support/definitions';

const paths = (input: unknown) => validateDefinition(input).errors.map((e) => e.path);

describe('engine: definition validation', () => {
  it('accepts a minimal graph and normalizes it', () => {
    const result = validateDefinition(definition());
    assert.deepEqual(result.errors, []);
    assert.equal(result.definition?.path, '/');
    assert.deepEqual(result.definition?.connections[0], {
      from: 'trigger',
      to: 'work',
      id: 'c1',
      sourcePort: 'default',
      targetPort: 'default',
    });
    assert.deepEqual(result.definition?.triggers, [{ id: 'trigger', pluginType: 'manual', config: {} }]);
  });

  it('accepts snake_case and steps as an array, expanding depends_on', () => {
    // trigger ──▶ gate ─true▶ done
    const result = validateDefinition({
      name: 'Snake',
      semantic_version: '1.0.0',
      steps: [
        { id: 'trigger', type: 'trigger', plugin_type: 'cron', config: { schedule: '0 * * * *', timezone: 'UTC' } },
        {
          id: 'gate',
          type: 'decider',
          plugin_type: 'conditional',
          config: { expression: '${{ 1 > 0 }}' },
          depends_on: ['trigger'],
          join_strategy: 'any',
        },
        { id: 'wait', type: 'wait', plugin_type: 'signal-wait', config: { signal_name: 'go', on_timeout: 'continue', timeout: 'PT24H' } },
        {
          id: 'done',
          type: 'module',
          plugin_type: 'no-op',
          error_handling: { retry_policy: { max_attempts: 3, initial_interval: '2s', jitter: 0.3 }, fallback_step: 'wait' },
        },
      ],
      connections: [
        { from: 'gate', to: 'wait', source_port: 'true' },
        { from: 'wait', to: 'done', source_port: 'timeout' },
        { from: 'trigger', to: 'gate' },
      ],
    });
    assert.deepEqual(result.errors, []);
    const def = result.definition!;
    assert.equal(def.semanticVersion, '1.0.0');
    assert.equal(def.steps.gate.joinStrategy, 'any');
    assert.equal(def.steps.wait.config.signalName, 'go');
    assert.equal(def.steps.wait.config.onTimeout, 'continue');
    assert.deepEqual(def.steps.done.errorHandling, {
      retryPolicy: { maxAttempts: 3, initialInterval: '2s', jitter: 0.3 },
      fallbackStep: 'wait',
    });
    // dependsOn duplicates the explicit connection and is deduplicated.
    assert.equal(def.connections.filter((c) => c.from === 'trigger' && c.to === 'gate').length, 1);
    assert.equal('dependsOn' in def.steps.gate, false);
    assert.deepEqual(
      def.triggers.map((t) => t.id),
      ['trigger'],
    );
  });

  it('discards a client triggers value', () => {
    const result = validateDefinition(definition('Demo', { triggers: [{ id: 'ghost', pluginType: 'cron' }] }));
    assert.deepEqual(
      result.definition?.triggers.map((t) => t.id),
      ['trigger'],
    );
    assert.equal(result.warnings[0].code, 'TRIGGERS_DISCARDED');
  });

  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['missing name', { name: undefined }, '/name'],
    ['bad key', { key: 'Bad_Key' }, '/key'],
    ['relative path', { path: 'team' }, '/path'],
    ['steps not an object', { steps: 3 }, '/steps'],
    ['hyphen in step id', { steps: { 'my-step': { type: 'module', pluginType: 'no-op' } }, connections: [] }, '/steps/my-step'],
    ['unknown plugin', { steps: { a: { type: 'module', pluginType: 'slack-send' } }, connections: [] }, '/steps/a/pluginType'],
    ['unknown type', { steps: { a: { type: 'robot', pluginType: 'no-op' } }, connections: [] }, '/steps/a/type'],
    [
      'missing required config',
      { steps: { a: { type: 'module', pluginType: 'http-request', config: {} } }, connections: [] },
      '/steps/a/config/url',
    ],
    [
      'wrong config type',
      { steps: { a: { type: 'module', pluginType: 'split-in-batches', config: { batchSize: 'ten' } } }, connections: [] },
      '/steps/a/config/batchSize',
    ],
    [
      'enum violation',
      { steps: { a: { type: 'module', pluginType: 'log', config: { message: 'x', level: 'loud' } } }, connections: [] },
      '/steps/a/config/level',
    ],
    [
      'bad cron',
      { steps: { t: { type: 'trigger', pluginType: 'cron', config: { schedule: '61 * * * *' } } }, connections: [] },
      '/steps/t/config/schedule',
    ],
    [
      'bad duration',
      { steps: { a: { type: 'module', pluginType: 'delay', config: { duration: 'soon' } } }, connections: [] },
      '/steps/a/config/duration',
    ],
    [
      'bad step timeout',
      { steps: { a: { type: 'module', pluginType: 'no-op', timeout: '5 minutes' } }, connections: [] },
      '/steps/a/timeout',
    ],
    [
      'expression does not parse',
      { steps: { a: { type: 'module', pluginType: 'log', config: { message: '${{ steps.x. }}' } } }, connections: [] },
      '/steps/a/config/message',
    ],
    [
      'decider expression does not parse',
      { steps: { a: { type: 'decider', pluginType: 'conditional', config: { expression: 'a ==' } } }, connections: [] },
      '/steps/a/config/expression',
    ],
    ['connection to unknown step', { connections: [{ from: 'trigger', to: 'ghost' }] }, '/connections/0/to'],
    ['unknown source port', { connections: [{ from: 'trigger', to: 'work', sourcePort: 'nope' }] }, '/connections/0/sourcePort'],
    ['unknown target port', { connections: [{ from: 'trigger', to: 'work', targetPort: 'callback' }] }, '/connections/0/targetPort'],
    [
      'connection condition does not parse',
      { connections: [{ from: 'trigger', to: 'work', condition: '((' }] },
      '/connections/0/condition',
    ],
    [
      'fallback to unknown step',
      { steps: { a: { type: 'module', pluginType: 'no-op', errorHandling: { fallbackStep: 'zzz' } } }, connections: [] },
      '/steps/a/errorHandling/fallbackStep',
    ],
    [
      'count join without joinCount',
      { steps: { a: { type: 'module', pluginType: 'no-op', joinStrategy: 'count' } }, connections: [] },
      '/steps/a/joinCount',
    ],
    [
      'trigger plugin in a module step',
      { steps: { a: { type: 'module', pluginType: 'cron', config: { schedule: '@hourly' } } }, connections: [] },
      '/steps/a/pluginType',
    ],
    [
      'dependsOn unknown step',
      { steps: { a: { type: 'module', pluginType: 'no-op', dependsOn: ['ghost'] } }, connections: [] },
      '/steps/a/dependsOn/0',
    ],
    ['secret in a variable initialValue', { variables: { v: { initialValue: '${{ secrets.TOKEN }}' } } }, '/variables/v/initialValue'],
    [
      'snake_case field named as sent',
      { steps: [{ id: 'a', type: 'module', plugin_type: 'nope' }], connections: [] },
      '/steps/0/plugin_type',
    ],
  ];
  for (const [label, patch, path] of cases) {
    it(`rejects: ${label} (${path})`, () => {
      const input = definition('Demo', patch);
      for (const [key, value] of Object.entries(patch)) if (value === undefined) delete input[key];
      assert.ok(paths(input).includes(path), JSON.stringify(validateDefinition(input).errors));
    });
  }

  it('reports one entry per offending field', () => {
    const errors = validateDefinition({
      name: '',
      key: 'X',
      steps: { a: { type: 'module', pluginType: 'nope' } },
      connections: [{ from: 'a', to: 'b' }],
    }).errors;
    assert.deepEqual(errors.map((e) => e.path).sort(), ['/connections/0/to', '/key', '/name', '/steps/a/pluginType']);
  });

  it('collects config references from templates and raw expressions', () => {
    const result = validateDefinition(
      definition('Demo', {
        steps: {
          trigger: { type: 'trigger', pluginType: 'manual' },
          work: {
            type: 'module',
            pluginType: 'http-request',
            config: { url: '${{ vars.BASE_URL }}/x', headers: { a: '${{ secrets["API_TOKEN"] }}' } },
          },
          gate: { type: 'decider', pluginType: 'conditional', config: { expression: 'vars.ENABLED == true' } },
        },
      }),
    );
    assert.deepEqual(result.errors, []);
    assert.deepEqual(result.references, [
      { kind: 'var', name: 'BASE_URL' },
      { kind: 'secret', name: 'API_TOKEN' },
      { kind: 'var', name: 'ENABLED' },
    ]);
  });

  it('accepts the case decider ports and the paginated-fetch callback port', () => {
    // fetch ─loop▶ route ─big▶ fetch(callback)
    const result = validateDefinition({
      name: 'Ports',
      steps: {
        fetch: { type: 'module', pluginType: 'paginated-fetch', config: { url: 'https://x', mode: 'stream' } },
        route: {
          type: 'decider',
          pluginType: 'case',
          config: { expression: '$item.size', cases: [{ match: 'L', port: 'big' }], default: 'other' },
        },
      },
      connections: [
        { from: 'fetch', to: 'route', sourcePort: 'loop' },
        { from: 'route', to: 'fetch', sourcePort: 'big', targetPort: 'callback' },
        { from: 'route', to: 'fetch', sourcePort: 'other', targetPort: 'callback' },
      ],
    });
    assert.deepEqual(result.errors, []);
  });

  it('does not let a __proto__ step id pollute prototypes', () => {
    const input = JSON.parse('{"name":"p","steps":{"__proto__":{"type":"module","pluginType":"no-op"}}}');
    const result = validateDefinition(input);
    assert.deepEqual(
      result.errors.map((e) => e.path),
      ['/steps/__proto__'],
    );
    assert.equal(({} as Record<string, unknown>).type, undefined);
  });

  it('keeps a __proto__ key of a step, a connection or a config as data, never as a prototype', () => {
    const input = JSON.parse(
      `{"name":"p","steps":{"start":{"type":"trigger","pluginType":"manual"},` +
        `"work":{"type":"module","pluginType":"log","config":{"message":"hi","__proto__":{"polluted":1}},"__proto__":{"polluted":2}}},` +
        `"connections":[{"from":"start","to":"work","__proto__":{"polluted":3}}]}`,
    );
    const result = validateDefinition(input);
    assert.ok(result.definition, JSON.stringify(result.errors));
    const work = result.definition.steps.work as unknown as Record<string, unknown>;
    const connection = result.definition.connections[0] as unknown as Record<string, unknown>;
    for (const copy of [work, work.config as Record<string, unknown>, connection]) {
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.equal((copy as { polluted?: number }).polluted, undefined);
    }
    // The config is kept as sent, its `__proto__` key included (as data).
    assert.deepEqual(Object.getOwnPropertyDescriptor(work.config, '__proto__')?.value, { polluted: 1 });
  });
  it('takes extra plugins (the kit registers its stubs): kind, config schema and ports come from them', () => {
    //   start ─▶ vendor ─approved─▶ done
    const doc = {
      name: 'extra',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        { id: 'vendor', type: 'module', pluginType: 'acme-approval', config: { level: 'x' } },
        { id: 'done', type: 'module', pluginType: 'no-op' },
      ],
      connections: [
        { from: 'start', to: 'vendor' },
        { from: 'vendor', sourcePort: 'approved', to: 'done' },
      ],
    };
    assert.match(
      validateDefinition(doc)
        .errors.map((e) => e.message)
        .join('\n'),
      /Unknown plugin type: acme-approval/,
    );
    const acme: PluginDescriptor = {
      ...findPlugin('no-op')!,
      name: 'acme-approval',
      outputPorts: ['default', 'approved'],
      configSchema: { properties: { level: { type: 'integer' } } },
    };
    const checked = validateDefinition(doc, { plugins: { 'acme-approval': acme } });
    assert.deepEqual(
      checked.errors.map((e) => e.path),
      ['/steps/1/config/level'],
    );
    const fixed = validateDefinition(
      { ...doc, steps: doc.steps.map((s) => (s.id === 'vendor' ? { ...s, config: { level: 2 } } : s)) },
      {
        plugins: { 'acme-approval': acme },
      },
    );
    assert.deepEqual(fixed.errors, []);
  });
});
