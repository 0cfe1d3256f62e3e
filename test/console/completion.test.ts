/**
 * The editor's completion source, pure (the browser test types in the real editor): inside `${{ }}`, after
 * `steps.<id>.outputs.` it offers the fields the step's plugin declares (GET /workflows/plugins' outputSchema).
 */
import assert from 'node:assert/strict';
import { CompletionContext, type CompletionResult } from '@codemirror/autocomplete';
import { EditorState } from '@codemirror/state';
import { definitionCompletion, stepPluginType, type PluginDescriptor } from '../../console/src/editor/completion';
import { PLUGINS, describePlugin } from '../../workflows/engine';

const plugins = Object.values(PLUGINS).map((plugin) => describePlugin(plugin) as unknown as PluginDescriptor);

function complete(text: string): CompletionResult | null {
  const state = EditorState.create({ doc: text });
  const result = definitionCompletion(() => plugins)(new CompletionContext(state, text.length, true));
  return result instanceof Promise ? null : result;
}

const MAP_FORM = `name: Deploy
steps:
  start:
    type: trigger
    pluginType: manual
  deploy:
    type: module
    pluginType: http-request
    config:
      url: https://deploy.example/
  note:
    type: module
    pluginType: log
    config:
      message: "HTTP \${{ steps.deploy.outputs.`;

describe('console editor completion: step outputs', () => {
  it("completes steps.<id>.outputs. with the fields the step's plugin returns", () => {
    const result = complete(MAP_FORM);
    const labels = result?.options.map((option) => option.label);
    assert.deepEqual(labels, [
      'steps.deploy.outputs.statusCode',
      'steps.deploy.outputs.statusText',
      'steps.deploy.outputs.headers',
      'steps.deploy.outputs.body',
    ]);
    assert.equal(result?.options[0].detail, 'integer');
    assert.match(String(result?.options[0].info), /status code/);
  });

  it('finds a step plugin in the array form too, and offers the roots when the step has no declared fields', () => {
    const arrayForm = `steps:
  - id: start
    type: trigger
    pluginType: manual
  - id: ask
    type: wait
    plugin_type: signal-wait
`;
    assert.equal(stepPluginType(EditorState.create({ doc: arrayForm }).doc, 'ask'), 'signal-wait');
    assert.equal(stepPluginType(EditorState.create({ doc: MAP_FORM }).doc, 'deploy'), 'http-request');
    const roots = complete(MAP_FORM.replace('steps.deploy.outputs.', 'steps.nowhere.outputs.'));
    assert.ok(roots?.options.some((option) => option.label === 'workflow.inputs'));
  });
});
