import assert from 'node:assert/strict';
import { PLUGINS, buildPluginRegistry, inlinePluginFor, type PluginDescriptor, type RegisteredPlugin } from '../../workflows/engine';

const descriptor = (name: string, extra: Partial<PluginDescriptor> = {}): PluginDescriptor => ({
  name,
  kind: 'module',
  description: name,
  executeMode: 'each',
  inline: true,
  inputPorts: ['default'],
  outputPorts: ['default'],
  configSchema: { properties: {} },
  ...extra,
});
const run = () => ({ status: 'success' as const });

describe('plugin registry (one list: descriptors and inline implementations)', () => {
  it('gives every inline, non-trigger descriptor its implementation, and no other', () => {
    for (const plugin of Object.values(PLUGINS)) {
      const expected = plugin.inline && plugin.kind !== 'trigger';
      assert.equal(inlinePluginFor(plugin.name) !== undefined, expected, plugin.name);
    }
    assert.equal(inlinePluginFor('nope'), undefined);
    assert.equal(inlinePluginFor(undefined), undefined);
  });

  it('keys every descriptor by its own name', () => {
    for (const [name, plugin] of Object.entries(PLUGINS)) assert.equal(plugin.name, name);
    assert.ok(Object.isFrozen(PLUGINS));
  });

  it('builds descriptors and implementations from one list', () => {
    const entries: RegisteredPlugin[] = [
      descriptor('t', { kind: 'trigger' }),
      { descriptor: descriptor('a'), run },
      descriptor('e', { inline: false }),
    ];
    const registry = buildPluginRegistry(entries);
    assert.deepEqual(Object.keys(registry.descriptors), ['t', 'a', 'e']);
    assert.deepEqual(Object.keys(registry.inline), ['a']);
  });

  it('refuses an inline descriptor registered without its implementation', () => {
    assert.throws(() => buildPluginRegistry([descriptor('forgotten')]), /inline plugin "forgotten" has a descriptor but no implementation/);
  });

  it('refuses a name registered twice', () => {
    assert.throws(
      () => buildPluginRegistry([{ descriptor: descriptor('a'), run }, descriptor('a', { inline: false })]),
      /"a" is registered twice/,
    );
  });

  it('refuses an implementation whose descriptor says it is not inline', () => {
    assert.throws(() => buildPluginRegistry([{ descriptor: descriptor('x', { inline: false }), run }]), /inline: false/);
  });
});
