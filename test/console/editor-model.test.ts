/**
 * The definition editor's pure parts (the browser test checks the editor):
 * problems at JSON pointers land on the text they name, syntax errors carry
 * positions, the shown text leaves out what the server computes, and the
 * step diff of two revisions.
 *
 *   from: start ─▶ one ─▶ two          to: start ─▶ one ─▶ audit
 *                                                   (two removed, one changed)
 */
import assert from 'node:assert/strict';
import { convert, definitionText, parseDefinition } from '../../console/src/editor/definition-text';
import { diffSteps } from '../../console/src/editor/graph-diff';

const YAML_TEXT = `name: Edited
steps:
  start:
    type: trigger
    pluginType: manual
  one:
    type: module
    pluginType: lgo
    config:
      message: hi
    dependsOn: [start, nowhere]
`;

describe('console definition editor (pure parts)', () => {
  it('finds the text a JSON pointer names, falling back to the deepest key that exists', () => {
    const parsed = parseDefinition(YAML_TEXT, 'yaml');
    assert.ok(parsed.ok);
    const at = (pointer: string) => {
      const range = parsed.locate(pointer);
      return YAML_TEXT.slice(range.from, range.to);
    };
    assert.equal(at('/steps/one/pluginType'), 'lgo');
    assert.equal(at('/steps/one/dependsOn/1'), 'nowhere');
    assert.equal(at('/steps/one/config/message'), 'hi');
    assert.equal(at('/steps/one/config/missing'), 'config', 'an absent key marks its parent key');
    assert.equal(at('/steps/one'), 'one');
    assert.equal(at('/steps/ghost/type'), 'steps');
  });

  it('does the same in JSON text, and reports syntax errors with their position', () => {
    const json = convert(YAML_TEXT, 'json')!;
    const parsed = parseDefinition(json, 'json');
    assert.ok(parsed.ok);
    const range = parsed.locate('/steps/one/pluginType');
    assert.equal(json.slice(range.from, range.to), '"lgo"');

    const broken = parseDefinition('name: x\nsteps:\n  a: [1, 2\n', 'yaml');
    assert.equal(broken.ok, false);
    assert.ok(!broken.ok && broken.problems.length > 0 && broken.problems[0].from > 0);
    const trailing = parseDefinition('{"name": "x",}', 'json');
    assert.equal(trailing.ok, false);
    assert.equal(parseDefinition('- a list', 'yaml').ok, false, 'a definition is an object');
  });

  it('shows a stored definition without what the server computes, in the order authors write', () => {
    const shown = definitionText(
      {
        steps: { start: { id: 'start', pluginType: 'manual', type: 'trigger' } },
        key: 'k',
        name: 'N',
        triggers: [{ id: 'start' }],
        releaseNotes: 'old notes',
      },
      'yaml',
    );
    assert.equal(shown, 'name: N\nkey: k\nsteps:\n  start:\n    type: trigger\n    pluginType: manual\n');
  });

  it('marks steps added, removed and changed (content or incoming edges), ignoring key order', () => {
    const from = {
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        one: { type: 'module', pluginType: 'log', config: { message: 'a', level: 'info' } },
        two: { type: 'module', pluginType: 'log' },
      },
      connections: [
        { from: 'start', to: 'one' },
        { from: 'one', to: 'two' },
      ],
    };
    const to = {
      steps: {
        start: { pluginType: 'manual', type: 'trigger' },
        one: { type: 'module', pluginType: 'log', config: { level: 'info', message: 'a' } },
        audit: { type: 'module', pluginType: 'log' },
      },
      connections: [
        { from: 'start', to: 'one' },
        { from: 'one', to: 'audit' },
      ],
    };
    const diff = diffSteps(from, to);
    assert.deepEqual(diff.added, ['audit']);
    assert.deepEqual(diff.removed, ['two']);
    assert.deepEqual(diff.changed, []);
    assert.equal(diff.change.get('start'), 'same');
    const rewired = diffSteps(from, {
      ...from,
      connections: [
        { from: 'start', to: 'one' },
        { from: 'start', to: 'two' },
      ],
    });
    assert.deepEqual(rewired.changed, ['two'], 'a step reached from elsewhere has changed');
  });
});
