import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDeferred, planScript, validateDefinition, type ScriptPlan } from '../../workflows/engine';
import { chain, step, trigger } from '../support/definitions';
import { runDefinition as run } from '../support/engine-run';

/**
 * Templates inside code-exec `code` are bound as values, never pasted into
 * the script (docs/security.md, "Templates are code, data is data"). The plan is run
 * here in Node with the two functions the sandbox binds (same source, same
 * texts), so a property can try many values quickly; the QuickJS sandbox is
 * exercised in test/execution/code-exec-templates.test.ts.
 */
const AsyncFunction = Object.getPrototypeOf(async function () {}).constructor as new (
  ...args: string[]
) => (...values: unknown[]) => Promise<unknown>;

function planOf(code: string): ScriptPlan {
  const { plan, error } = planScript(code);
  assert.ok(plan, `expected a plan for ${JSON.stringify(code)}, got: ${error}`);
  return plan;
}

function refusal(code: string): string {
  const { error } = planScript(code);
  assert.ok(error, `expected ${JSON.stringify(code)} to be refused`);
  return error;
}

/** Runs a plan as the sandbox does: the body of an async function, the texts behind VALUE(i) and TEXT(i). */
async function runPlan(code: string, texts: string[]): Promise<unknown> {
  const plan = planOf(code);
  const body = new AsyncFunction(plan.valueFunction || '_v', plan.textFunction || '_t', plan.source);
  return body(
    (index: number) => JSON.parse(texts[index]) as unknown,
    (index: number) => texts[index],
  );
}

/** Strings heavy in what ends literals, comments and substitutions. */
const nasty = fc.string({
  unit: fc.oneof(
    fc.constantFrom("'", '"', '`', '\\', '\n', '\r', '\u2028', '\u2029', '${', '}', '*/', '//', '/', '\0', '$', '{{', '}}'),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  ),
  maxLength: 40,
});

describe('templates inside code-exec code: bound as values', () => {
  it('places a template in a double-quoted, a single-quoted and a template literal as text', () => {
    assert.deepEqual(planOf('return "a ${{ x }} b"').slots, ['text']);
    assert.deepEqual(planOf("return 'a ${{ x }} b'").slots, ['text']);
    assert.deepEqual(planOf('return `a ${{ x }} b ${1 + 1}`').slots, ['text']);
    // The source the sandbox compiles carries no value: calls stand where the templates were.
    assert.equal(planOf("const who = '${{ x }}'; return who").source, 'const who = (__tplt(0)); return who');
  });

  it('places a template in expression position as a value, and one in a comment as nothing', () => {
    const plan = planOf('// for ${{ a }}\nconst n = ${{ b }} + 1; /* ${{ c }} */ return n');
    assert.deepEqual(plan.slots, ['comment', 'value', 'comment']);
    assert.equal(plan.source.includes('(__tplv(1))'), true);
  });

  it('tells a regular expression literal from a division next to a template', () => {
    assert.deepEqual(planOf('const half = ${{ n }} / 2 / 1; return half').slots, ['value']);
    assert.deepEqual(planOf('const ok = /a\\/b/.test("${{ s }}"); return ok').slots, ['text']);
    assert.match(refusal('return /^${{ prefix }}/.test(inputs.name)'), /regular expression literal/);
  });

  it('binds each value exactly: quotes, backslashes, newlines, "${", "*/" and the review attack', async () => {
    const attack = "'+key.split('').join('~')+'";
    for (const value of [attack, 'a"b', 'a\\nb\\', 'line\nbreak\r\n', '${1+1}', '*/ x /*', '`tick`', '\u2028\u2029', '']) {
      const texts = [value];
      const key = 'const key = "SECRET";';
      assert.equal(await runPlan(`${key} return '${'${{ w }}'}'`, texts), value);
      assert.equal(await runPlan(`${key} return "${'${{ w }}'}"`, texts), value);
      assert.equal(await runPlan(`${key} return \`<${'${{ w }}'}>\``, texts), `<${value}>`);
      assert.equal(await runPlan(`${key} // ${'${{ w }}'}\nreturn 1`, texts), 1);
      assert.equal(await runPlan(`${key} /* ${'${{ w }}'} */ return 2`, texts), 2);
    }
  });

  it('returns exactly any string placed in any literal (property)', async () => {
    await fc.assert(
      fc.asyncProperty(nasty, nasty, fc.constantFrom("'", '"', '`'), async (value, other, quote) => {
        const code = `const v = ${quote}[${'${{ a }}'}|${'${{ b }}'}]${quote}; // ${'${{ a }}'}\nreturn v`;
        assert.equal(await runPlan(code, [value, other]), `[${value}|${other}]`);
      }),
      { numRuns: 300 },
    );
  });

  it('reads a JSON text in expression position as that value, fresh on every read (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (value) => {
        const text = JSON.stringify(value);
        const out = (await runPlan(
          'const a = ${{ x }}; const b = ${{ x }}; return [a, b, a !== b || typeof a !== "object" || a === null]',
          [text, text],
        )) as unknown[];
        assert.deepEqual(out.slice(0, 2), [JSON.parse(text), JSON.parse(text)]);
        assert.equal(out[2], true, 'each read is a fresh value, as a pasted literal would be');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses what cannot be a value: names, declarations, assignments, tagged templates, escapes, a whole-template script', () => {
    for (const code of [
      'let ${{ x }} = 1',
      'const o = {}; o.${{ x }} = 1',
      '${{ x }} = 5',
      '${{ x }}++',
      'return { ${{ x }} }',
      'function ${{ x }}() {}',
      'return inputs.${{ x }}',
      '${{ x }}: for (;;) break',
    ])
      assert.match(refusal(code), /declares, assigns or names something/, code);
    assert.match(refusal('return foo${{ x }}'), /part of a name/);
    assert.match(refusal('return String.raw`${{ x }}`'), /tagged template/);
    assert.match(refusal("return '\\${{ x }}'"), /backslash/);
    assert.match(refusal("return '\\0${{ x }}'"), /octal escape/);
    assert.match(refusal("'${{ x }}'; 'use strict'; return 1"), /inside a directive/);
    assert.match(refusal('  ${{ steps.a.outputs.script }} '), /the code is one template/);
    assert.match(refusal('const a = ${{ x }}\nconst b = = 1'), /does not parse as JavaScript .*\(line 2\)/);
    assert.equal(planOf("return '\\\\${{ x }}'").slots[0], 'text', 'an escaped backslash does not escape the value');
  });

  it('keeps a property named by a string with a template a property (a computed key)', async () => {
    assert.deepEqual(await runPlan('return { "k-${{ x }}": 1 }', ['v']), { 'k-v': 1 });
    assert.equal(await runPlan('class A { "m${{ x }}"() { return 7 } } return new A().mq()', ['q']), 7);
  });

  it('leaves a script without templates as written', () => {
    assert.deepEqual(planOf('return /x/.test("a") // ${ not a template }'), {
      source: 'return /x/.test("a") // ${ not a template }',
      slots: [],
      templates: [],
      valueFunction: '',
      textFunction: '',
    });
  });
});

describe('templates inside code-exec code: publish and run', () => {
  const definition = (code: string) => ({
    name: 'w',
    steps: { start: { type: 'trigger', pluginType: 'manual' }, run: { type: 'module', pluginType: 'code-exec', config: { code } } },
    connections: [{ from: 'start', to: 'run' }],
  });

  it('refuses at publish a template that cannot be a value, naming the step code and the idiom', () => {
    const result = validateDefinition(definition('const who = ${{ workflow.inputs.who }}.trim(); return /${{ workflow.inputs.p }}/'));
    assert.deepEqual(
      result.errors.map((error) => error.path),
      ['/steps/run/config/code'],
    );
    assert.match(
      result.errors[0].message,
      /^the template "\$\{\{ workflow\.inputs\.p \}\}" \(line 1\) is inside a regular expression literal/,
    );
    assert.match(result.errors[0].message, /declare the value in the step's inputs .* read it as inputs\.who/);
    assert.deepEqual(validateDefinition(definition("const who = '${{ workflow.inputs.who }}'; return { who }")).errors, []);
  });

  it('sends the code as written and each template as text apart; a secret is left for the activity', async () => {
    const code = "const key = '${{ secrets.KEY }}'; const who = '${{ workflow.inputs.who }}'; return { n: ${{ workflow.inputs.n }} }";
    const { outcome, calls } = await run(
      { steps: chain(trigger(), step('run', 'code-exec', { code })) },
      { who: "'+key+'", n: 3 },
      { activities: { 'code-exec': () => ({ status: 'success', outputs: {} }) } },
    );
    assert.equal(outcome.status, 'completed', JSON.stringify(outcome));
    const [call] = calls;
    assert.equal(call.config.code, code, 'the workflow never resolves the script');
    assert.deepEqual(call.bound, { code: ['', "'+key+'", '3'] });
    assert.deepEqual(call.deferred, [{ target: 'bound', path: ['code', 0], template: '${{ secrets.KEY }}' }]);
    const resolved = applyDeferred(call, call.deferred ?? [], { ...call.scope, secrets: { KEY: 's3cr"t' } });
    assert.deepEqual(resolved.bound, { code: ['s3cr"t', "'+key+'", '3'] });
    assert.equal(resolved.config.code, code);
  });
});
