/**
 * Nothing accepted is ignored (issue 18 §1): every key of every built-in
 * plugin's config schema and every step-level / top-level field the
 * validator accepts has an entry in ./accepted-keys.ts naming the test that
 * shows its effect or its refusal, and that test exists.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PLUGINS } from '../../workflows/engine';
import { SHOWN, STEP_AND_TOP_LEVEL_FIELDS } from './accepted-keys';

function acceptedKeys(): string[] {
  const pluginKeys = Object.values(PLUGINS).flatMap((plugin) =>
    Object.keys(plugin.configSchema.properties).map((key) => `${plugin.name}.config.${key}`),
  );
  return [...STEP_AND_TOP_LEVEL_FIELDS, ...pluginKeys];
}

describe('accepted keys: enumeration', () => {
  it('maps every accepted key to a test that shows its effect or its refusal', () => {
    const missing = acceptedKeys().filter((key) => !Object.hasOwn(SHOWN, key));
    assert.deepEqual(missing, [], 'add these keys to SHOWN in test/engine/accepted-keys.ts with the test that shows their effect');
  });

  it('names only tests that exist, and only keys that are accepted', () => {
    const sources = new Map<string, string>();
    for (const [key, { file, title }] of Object.entries(SHOWN)) {
      if (!sources.has(file)) sources.set(file, readFileSync(file, 'utf8'));
      const source = sources.get(file)!;
      const quoted = [`'${title.replace(/'/g, "\\'")}'`, `"${title}"`, `\`${title}\``];
      assert.ok(
        quoted.some((q) => source.includes(`it(${q}`) || source.includes(`it(\n    ${q}`)),
        `${key}: no test titled "${title}" in ${file}`,
      );
    }
    const known = new Set(acceptedKeys());
    for (const key of Object.keys(SHOWN)) assert.ok(known.has(key), `${key} is not an accepted key (renamed?)`);
  });
});
