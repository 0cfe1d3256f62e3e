/**
 * The authoring reference is generated from the descriptors (bin/plugin-reference.ts): the committed files must be
 * what the generator writes now, so a plugin's config, outputs or the template roots cannot change without the docs.
 * Each plugin's example also validates.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { renderPluginReference, renderTemplateRoots } from '../../bin/plugin-reference';
import { PLUGINS, validateDefinition } from '../../workflows/engine';

const docs = path.join(__dirname, '..', '..', 'docs');
const committed = (file: string) => readFileSync(path.join(docs, file), 'utf8');

describe('docs: the generated authoring reference', () => {
  for (const [file, render] of [
    ['plugin-reference.md', renderPluginReference],
    ['template-roots.md', renderTemplateRoots],
  ] as const) {
    it(`docs/${file} is up to date with the descriptors (else run npm run docs:plugins)`, () => {
      assert.equal(committed(file), render(), `docs/${file} is stale: run npm run docs:plugins and commit it`);
    });
  }

  it('documents every built-in plugin, with an example that validates', () => {
    const text = renderPluginReference();
    const examples = [...text.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => parse(match[1]) as { steps: Record<string, unknown> });
    assert.equal(examples.length, Object.keys(PLUGINS).length);
    for (const name of Object.keys(PLUGINS)) assert.ok(text.includes(`## \`${name}\``), name);
    for (const example of examples) {
      const result = validateDefinition({ name: 'example', ...example });
      assert.deepEqual(result.errors, [], JSON.stringify(example));
    }
  });
});
