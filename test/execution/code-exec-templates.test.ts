import assert from 'node:assert/strict';
import fc from 'fast-check';
import { codeExec } from '../../activities/plugins/code-exec';
import { failure, pluginContext } from '../support/plugin-calls';

/**
 * code-exec in its QuickJS sandbox reads the templates of its code as values
 * (`bound.code`, one text per template, as the workflow and the activity
 * evaluated them): the script compiled is the definition's own, a value never
 * becomes code. The engine's plan is tested in test/engine/script-templates.test.ts.
 */
function run(code: string, texts: string[]) {
  const { ctx } = pluginContext({ code });
  ctx.bound = { code: texts };
  return codeExec(ctx);
}

describe('plugin: code-exec reads its templates as values', () => {
  it('keeps the review attack text: a value cannot end its string literal', async () => {
    const who = "'+key.split('').join('~')+'";
    const code = "const key = '${{ secrets.KEY }}'; const who = '${{ workflow.inputs.body.who }}'; return { who, n: key.length }";
    assert.deepEqual((await run(code, ['s3cret', who])).outputs, { who, n: 6 });
  });

  it('returns exactly any string placed in a string or template literal, whatever it holds (property)', async () => {
    const value = fc.string({
      unit: fc.oneof(
        fc.constantFrom("'", '"', '`', '\\', '\n', '\r', '\u2028', '${', '}', '*/', '/', '\0'),
        fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
      ),
      maxLength: 30,
    });
    await fc.assert(
      fc.asyncProperty(value, fc.constantFrom("'", '"', '`'), async (text, quote) => {
        const code = `/* ${'${{ v }}'} */ return { v: ${quote}${'${{ v }}'}${quote} } // ${'${{ v }}'}`;
        assert.deepEqual((await run(code, [text, text, text])).outputs, { v: text });
      }),
      { numRuns: 60 },
    );
  });

  it('reads a JSON text where the code reads a value, fresh on every read', async () => {
    const code =
      'const out = []; for (let i = 0; i < 2; i++) { const list = ${{ steps.a.outputs.list }}; list.push(i); out.push(list) } return { out, n: ${{ vars.N }} + 1 }';
    assert.deepEqual((await run(code, ['[1]', '10'])).outputs, {
      out: [
        [1, 0],
        [1, 1],
      ],
      n: 11,
    });
  });

  it('fails CODE_TEMPLATE_NOT_A_VALUE when text that is not JSON stands where code is read, before anything runs', async () => {
    const { ctx, lines } = pluginContext({ code: 'console.log("ran"); return { who: ${{ workflow.inputs.who }} }' });
    ctx.bound = { code: ['key.split("").join("~")'] };
    const failed = await failure(codeExec(ctx));
    assert.deepEqual([failed.type, failed.nonRetryable], ['CODE_TEMPLATE_NOT_A_VALUE', true]);
    assert.match(failed.message, /^the template "\$\{\{ workflow\.inputs\.who \}\}" stands where the code reads a value/);
    assert.equal(failed.message.includes('split'), false, 'the message names the template, never its value');
    assert.deepEqual(lines, []);
  });

  it('fails PLUGIN_CONFIG_INVALID for a revision published before the rule whose template cannot be placed', async () => {
    const failed = await failure(run('return /${{ workflow.inputs.p }}/.test("x")', ['.*']));
    assert.deepEqual([failed.type, failed.nonRetryable], ['PLUGIN_CONFIG_INVALID', true]);
    assert.match(failed.message, /regular expression literal/);
    const missing = await failure(run("return '${{ workflow.inputs.p }}'", []));
    assert.match(missing.message, /has 1 templates but the call carries 0 values/);
  });
});
