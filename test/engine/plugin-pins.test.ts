/** Operator plugins in the engine: known to the validator through a catalog, pinned into the definition, versions compared. */
import assert from 'node:assert/strict';
import {
  PINNED_PLUGINS_KEY,
  findPlugin,
  isCompatibleVersion,
  validateDefinition,
  withPluginCatalog,
  type PluginDescriptor,
} from '../../workflows/engine';

const chat: PluginDescriptor = {
  name: 'chat',
  version: '1.4.2',
  kind: 'module',
  description: 'chat',
  executeMode: 'all',
  inline: false,
  inputPorts: ['default'],
  outputPorts: ['default'],
  configSchema: { properties: { text: { type: 'string' } }, required: ['text'] },
};

const doc = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  name: 'n',
  path: '/',
  steps: { start: { type: 'trigger', pluginType: 'manual' }, say: { type: 'module', pluginType: 'chat', config } },
  connections: [{ from: 'start', to: 'say' }],
  ...extra,
});

describe('engine: operator plugins', () => {
  it('are known to the validator only with their catalog, config checked by the same schema language', () => {
    assert.match(JSON.stringify(validateDefinition(doc({ text: 'hi' })).errors), /Unknown plugin type: chat/);
    const ok = validateDefinition(doc({ text: 'hi' }), { plugins: { chat } });
    assert.deepEqual(ok.errors, []);
    const bad = validateDefinition(doc({}), { plugins: { chat } });
    assert.deepEqual(bad.errors, [{ path: '/steps/say/config/text', message: 'is required' }]);
    assert.equal(findPlugin('chat'), undefined, 'the catalog is known only while validation runs');
    assert.equal(
      withPluginCatalog({ chat }, () => findPlugin('chat')),
      chat,
    );
  });

  it('pins the version and execute mode of the ones a definition uses, replacing what a client sent', () => {
    const sent = validateDefinition(doc({ text: 'hi' }, { [PINNED_PLUGINS_KEY]: { chat: { version: '9.9.9' } } }), { plugins: { chat } });
    assert.deepEqual(sent.definition?.[PINNED_PLUGINS_KEY], { chat: { version: '1.4.2', executeMode: 'all' } });
    const none = validateDefinition({
      ...doc({}),
      steps: { start: { type: 'trigger', pluginType: 'manual' } },
      connections: [],
      pinnedPlugins: {},
    });
    assert.equal(none.definition && PINNED_PLUGINS_KEY in none.definition, false);
  });

  it('compares versions by semantic versioning: same major (0.x: same minor), not older', () => {
    const cases: Array<[string, string, boolean]> = [
      ['1.4.2', '1.4.2', true],
      ['1.4.2', '1.5.0', true],
      ['1.4.2', '1.4.1', false],
      ['1.4.2', '2.0.0', false],
      ['2.0.0', '1.9.9', false],
      ['0.3.1', '0.3.4', true],
      ['0.3.1', '0.4.0', false],
      ['1.0.0-beta.1', '1.0.0-beta.1', true],
      ['1.0.0-beta.1', '1.0.0', false],
      ['x', '1.0.0', false],
    ];
    for (const [pinned, available, expected] of cases)
      assert.equal(isCompatibleVersion(pinned, available), expected, `${pinned} → ${available}`);
  });
});
