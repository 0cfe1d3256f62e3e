import assert from 'node:assert/strict';
import { EFFECTFUL_PLUGINS, effectfulPluginFor, effectfulRegistry } from '../../activities/plugins/registry';
import type { EffectfulPlugin } from '../../activities/plugins/plugin-context';
import { PLUGINS, httpRequestDescriptor, type PluginDescriptor } from '../../workflows/engine';

const run: EffectfulPlugin['run'] = () => Promise.resolve({ status: 'success' });
const effectful = (name: string): PluginDescriptor => ({ ...httpRequestDescriptor, name });

describe('effectful plugin registry (activities/plugins)', () => {
  it('implements every non-inline descriptor exactly once, and nothing else', () => {
    const names = EFFECTFUL_PLUGINS.map((plugin) => plugin.descriptor.name).sort();
    const described = Object.values(PLUGINS)
      .filter((plugin) => !plugin.inline)
      .map((plugin) => plugin.name)
      .sort();
    assert.deepEqual(names, described);
    for (const plugin of EFFECTFUL_PLUGINS) {
      assert.equal(plugin.descriptor, PLUGINS[plugin.descriptor.name], `${plugin.descriptor.name} implements the registered descriptor`);
      assert.equal(effectfulPluginFor(plugin.descriptor.name), plugin.run);
    }
    assert.equal(effectfulPluginFor('log'), undefined);
  });

  it('fails when a described effectful plugin has no implementation', () => {
    const descriptors = { ...PLUGINS, forgotten: effectful('forgotten') };
    assert.throws(() => effectfulRegistry(EFFECTFUL_PLUGINS, descriptors), /"forgotten" has no implementation/);
  });

  it('fails when a plugin is implemented twice', () => {
    assert.throws(() => effectfulRegistry([...EFFECTFUL_PLUGINS, EFFECTFUL_PLUGINS[0]]), /more than one implementation/);
  });

  it('fails when an implementation names a descriptor the engine does not register', () => {
    assert.throws(() => effectfulRegistry([...EFFECTFUL_PLUGINS, { descriptor: effectful('stray'), run }]), /does not register/);
    // A copy of a registered descriptor is not the registered one: implementations are keyed by the descriptor itself.
    assert.throws(() => effectfulRegistry([{ descriptor: { ...httpRequestDescriptor }, run }]), /does not register/);
  });

  it('refuses an activity implementation for an inline plugin', () => {
    assert.throws(() => effectfulRegistry([...EFFECTFUL_PLUGINS, { descriptor: PLUGINS.log, run }]), /runs inside the workflow/);
  });
});
