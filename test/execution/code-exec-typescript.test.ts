/** The worker's type stripping for `code-exec` `language: ts` (the second line behind the publish check). */
import assert from 'node:assert/strict';
import { stripTypes } from '../../activities/plugins/code-exec-typescript';

describe('code-exec TypeScript: stripping types', () => {
  it('keeps the statements of a function body (top-level await and return) and drops the types', async () => {
    const js = await stripTypes('interface A { n: number }\nconst a: A = { n: await Promise.resolve(1) as number };\nreturn a;');
    assert.doesNotMatch(js, /interface|: A|as number/);
    assert.match(js, /const a = \{ n: await Promise\.resolve\(1\) \};/);
    assert.match(js, /return a;/);
  });

  it('fails a script that does not parse, or that closes its body, with a clear message', async () => {
    await assert.rejects(stripTypes('const x: = 1;'), (error: Error & { type?: string }) => {
      assert.equal(error.type, 'PLUGIN_CONFIG_INVALID');
      assert.match(error.message, /not valid TypeScript: Unexpected "=" \(line 1, column 10\)/);
      return true;
    });
    await assert.rejects(stripTypes('return 1;\n}\nfunction again() {'), /not a function body/);
  });
});
