/**
 * The PLUGINS setting: parsed from the environment, each plugin checked when
 * loaded, and a broken one stops the API or the worker at start-up with a
 * message naming it.
 */
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PluginLoadError, loadOperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import { parseConfig } from '../../config/config';
import { ROOT, runScript } from '../support/process';
import { validateDefinition } from '../../workflows/engine';

const EXAMPLE = './examples/plugins/chat-message';

describe('operator plugins: the PLUGINS setting and start-up', () => {
  it('reads PLUGINS as a comma-separated list (empty by default)', () => {
    assert.deepEqual(parseConfig({}).plugins, []);
    assert.deepEqual(parseConfig({ PLUGINS: ' @acme/slack, ./plugins/jira ,' }).plugins, ['@acme/slack', './plugins/jira']);
  });

  it('loads a plugin folder and names its descriptor', async () => {
    const loaded = await loadOperatorPlugins([EXAMPLE], ROOT);
    assert.deepEqual(Object.keys(loaded.catalog), ['chat-message']);
    assert.equal(loaded.byName.get('chat-message')?.entry, EXAMPLE);
  });

  describe('refuses, naming the plugin', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(path.join(tmpdir(), 'plugins-'));
    });
    const plugin = async (file: string, source: string) => {
      await writeFile(path.join(dir, file), source);
      return path.join(dir, file);
    };
    const refused = async (entries: string[], pattern: RegExp) => {
      await assert.rejects(loadOperatorPlugins(entries, ROOT), (error: unknown) => {
        assert.ok(error instanceof PluginLoadError, String(error));
        assert.match(error.message, pattern);
        return true;
      });
    };
    const valid = (name: string, version = '1.0.0') =>
      `exports.descriptor = { name: '${name}', version: '${version}', kind: 'module', description: 'd', configSchema: { type: 'object', properties: {} } };\n` +
      `exports.execute = () => ({});\n`;

    it('a package that is not installed', () => refused(['@acme/not-installed'], /plugin "@acme\/not-installed" could not be loaded/));
    it('a schema keyword the engine cannot enforce', () =>
      refused(['./test/fixtures/plugins/broken-schema.ts'], /plugin ".*broken-schema.ts" has an invalid descriptor: .*"pattern"/));
    it('a version that is not semantic', async () =>
      refused([await plugin('v.cjs', valid('vee', 'one.two.three'))], /not a semantic version/));
    it('a built-in name', async () =>
      refused([await plugin('b.cjs', valid('http-request'))], /"http-request", which is a built-in plugin/));
    it('a name used twice', async () => {
      const one = await plugin('one.cjs', valid('twin'));
      const two = await plugin('two.cjs', valid('twin'));
      await refused([one, two], /is named "twin", like plugin ".*one.cjs"/);
    });
    it('a decider that declares no port to route to', async () =>
      refused(
        [await plugin('d.cjs', valid('gatekeeper').replace("kind: 'module'", "kind: 'decider'"))],
        /plugin ".*d.cjs" has an invalid descriptor: a decider declares the ports it routes to: outputPorts must name at least one besides "default"/,
      ));
    it("a two-phase wait that declares the wait's own settings, or that is not a module", async () => {
      const waits = valid('asker').replace("kind: 'module',", "kind: 'module', twoPhaseWait: true,");
      await refused(
        [await plugin('w1.cjs', waits.replace('properties: {}', "properties: { timeout: { type: 'string' } }"))],
        /\/configSchema\/properties declares "timeout", which a two-phase wait's step takes for its wait \(the engine adds them\)/,
      );
      await refused(
        [await plugin('w2.cjs', waits.replace("kind: 'module'", "kind: 'decider', outputPorts: ['a']"))],
        /twoPhaseWait is for modules, and this plugin is a decider/,
      );
    });
    it('an output schema that is not one (its type, an unknown keyword), and loads a valid one checked at publish', async () => {
      const withOutputs = (schema: string) => valid('reporter').replace('configSchema:', `outputSchema: ${schema}, configSchema:`);
      await refused(
        [await plugin('o1.cjs', withOutputs("{ type: 'array' }"))],
        /\/outputSchema describes what a step outputs, always an object/,
      );
      await refused(
        [await plugin('o2.cjs', withOutputs("{ type: 'object', properties: { ok: { type: 'boolean', pattern: 'x' } } }"))],
        /\/outputSchema\/properties\/ok has "pattern", which plugin descriptors do not support/,
      );
      const loaded = await loadOperatorPlugins(
        [await plugin('o3.cjs', withOutputs("{ type: 'object', properties: { ok: { type: 'boolean' } }, additionalProperties: false }"))],
        ROOT,
      );
      const doc = {
        name: 'reads',
        steps: {
          start: { type: 'trigger', pluginType: 'manual' },
          report: { type: 'module', pluginType: 'reporter', dependsOn: ['start'] },
          log: { type: 'module', pluginType: 'log', config: { message: '${{ steps.report.outputs.okay }}' }, dependsOn: ['report'] },
        },
      };
      assert.match(
        validateDefinition(doc, { plugins: loaded.catalog }).errors[0].message,
        /returns no "okay"; did you mean `steps\.report\.outputs\.ok`\?/,
      );
    });
    it('state on a plugin that runs per item', async () =>
      refused(
        [await plugin('s.cjs', valid('keeper').replace("kind: 'module',", "kind: 'module', nodeState: true, executeMode: 'each',"))],
        /a plugin with nodeState runs once per activation \(its state is the step's\): executeMode must be "all"/,
      ));
    it('a trigger without activate, with execute, with input ports or with a step feature', async () => {
      const trigger = (extra = '') =>
        `exports.descriptor = { name: 'hooky', version: '1.0.0', kind: 'trigger', description: 'd', configSchema: { type: 'object', properties: {} }${extra} };\n`;
      await refused(
        [await plugin('t1.cjs', trigger())],
        /plugin ".*t1.cjs" \(hooky\) is a trigger and does not export an activate function/,
      );
      await refused(
        [await plugin('t2.cjs', `${trigger()}exports.activate = () => ({});\nexports.execute = () => ({});\n`)],
        /\(hooky\) is a trigger: its steps run nothing, so it exports activate and deactivate, not execute/,
      );
      await refused(
        [await plugin('t3.cjs', `${trigger(", inputPorts: ['default'], nodeState: true")}exports.activate = () => ({});\n`)],
        /inputPorts must be empty \(or absent\); a trigger runs no step call: "nodeState" does not apply to it/,
      );
      await refused(
        [await plugin('t4.cjs', `${valid('moddy')}exports.activate = () => ({});\n`)],
        /exports activate or deactivate, which only a trigger has \(its kind is module\)/,
      );
    });
    it('a kind that does not exist', async () =>
      refused(
        [await plugin('k.cjs', valid('kinder').replace("kind: 'module'", "kind: 'observer'"))],
        /\/kind must be one of "module", "decider", "trigger"/,
      ));
    it('no execute function', async () =>
      refused([await plugin('x.cjs', valid('lazy').replace(/exports\.execute.*/, ''))], /does not export an execute function/));
  });

  for (const script of ['bin/start-api.ts', 'bin/start-worker.ts']) {
    it(`${script} stops at start-up on a broken plugin, naming it`, async function () {
      this.timeout(30_000);
      const result = await runScript(script, {
        env: { PLUGINS: `${EXAMPLE},./test/fixtures/plugins/broken-schema.ts` },
        timeoutMs: 25_000,
      });
      assert.equal(result.code, 2, result.stdout + result.stderr);
      assert.match(result.stderr, /Invalid plugin: plugin "\.\/test\/fixtures\/plugins\/broken-schema\.ts" has an invalid descriptor/);
    });
  }
});
