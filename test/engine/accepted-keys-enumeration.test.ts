/**
 * Nothing accepted is ignored (issue 18 §1): every key of every built-in
 * plugin's config schema and every step-level / top-level field the
 * validator accepts without a warning (workflows/engine/validate-ignored.ts
 * ACCEPTED_FIELDS; any other key draws DEFINITION_KEY_IGNORED) has an entry
 * in ./accepted-keys.ts naming the test that shows its effect or its
 * refusal, and that test exists.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ACCEPTED_FIELDS, PLUGINS } from '../../workflows/engine';
import { DECLARATION_KEYS, SHOWN } from './accepted-keys';

/** Every key the validator accepts without a warning: its field lists, every plugin's config schema, and the declarations' keys. */
function acceptedKeys(): string[] {
  const { top, step, errorHandling, retryPolicy, forEach, loop, anyConfig } = ACCEPTED_FIELDS;
  const pluginKeys = Object.values(PLUGINS).flatMap((plugin) =>
    Object.keys(plugin.configSchema.properties).map((key) => `${plugin.name}.config.${key}`),
  );
  return [
    ...top.map((key) => `top:${key}`),
    ...step,
    ...errorHandling.map((key) => `errorHandling.${key}`),
    ...retryPolicy.map((key) => `errorHandling.retryPolicy.${key}`),
    ...forEach.map((key) => `forEach.${key}`),
    ...loop.map((key) => `loop.${key}`),
    ...anyConfig.map((key) => `config.${key}`),
    ...DECLARATION_KEYS,
    ...pluginKeys,
  ];
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
