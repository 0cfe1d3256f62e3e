/**
 * What validates runs: an expression form the evaluator refuses whatever the data ("not supported", an unknown
 * function, a callee that is not a name or a method) is refused at publish with the evaluator's own message. The
 * property: for expressions generated from jsep's grammar (literals, arrays, objects, members, calls, unary, binary
 * and ternary operators, arrow functions, template literals, sequences, `this`, `new`…), when the validator accepts
 * one, evaluating it never answers one of those refusals (type errors and the like depend on data and stay).
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { evaluateExpression, validateDefinition, type EvaluationScope } from '../../workflows/engine';

/** `start ─▶ gate(conditional)`: the expression is the decider's (a raw expression, as connection conditions are). */
function validates(expression: string): { ok: boolean; messages: string[] } {
  const result = validateDefinition({
    name: 'property',
    steps: {
      start: { type: 'trigger', pluginType: 'manual' },
      gate: { type: 'decider', pluginType: 'conditional', config: { expression }, dependsOn: ['start'] },
    },
  });
  return { ok: result.errors.length === 0, messages: result.errors.map((error) => error.message) };
}

const scope: EvaluationScope = {
  workflow: { inputs: { who: 'ann', n: 2, list: [1, 2, 3] }, variables: { s: 'abc' }, id: 'wf_1', key: null },
  variables: { s: 'abc', list: [1, 2, 3], o: { a: 1 } },
  steps: { start: { outputs: { who: 'ann' }, items: [{ who: 'ann' }], status: 'completed', error: null } },
  execution: {
    id: 'exec_1',
    workflowId: 'wf_1',
    revision: 1,
    alias: null,
    startedAt: '2026-01-01T00:00:00Z',
    correlationKey: null,
    organizationId: '1',
  },
  trigger: { source: 'manual', payload: { who: 'ann' }, receivedAt: '2026-01-01T00:00:00Z' },
  signal: null,
  vars: { BASE: 'https://x.test' },
  inputs: { a: 1 },
  $item: { a: 1, s: 'text' },
  $items: [{ a: 1 }],
  $itemIndex: 0,
  $itemsLength: 1,
};

/** The evaluator's refusals of a form (not of data). */
const REFUSAL = /not supported|unknown function|only named functions|is not accessible|is not available on strings or arrays/;

function evaluationRefusal(expression: string): string | undefined {
  try {
    evaluateExpression(expression, scope);
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return REFUSAL.test(message) ? message : undefined;
  }
}

const name = fc.constantFrom(
  'workflow',
  'variables',
  'steps',
  'vars',
  'inputs',
  '$item',
  '$items',
  'execution',
  'trigger',
  'x',
  'undefined',
);
const field = fc.constantFrom(
  'inputs',
  'who',
  'list',
  's',
  'o',
  'a',
  'start',
  'outputs',
  'length',
  'BASE',
  'id',
  'constructor',
  '__proto__',
);
const method = fc.constantFrom('trim', 'toUpperCase', 'includes', 'join', 'slice', 'split', 'map', 'toString', 'filter', 'indexOf');
const fn = fc.constantFrom(
  'len',
  'contains',
  'concat',
  'keys',
  'string',
  'number',
  'json',
  'lower',
  'upper',
  'trim',
  'eval',
  'parseInt',
  'Date',
);
const literal = fc.oneof(
  fc.integer({ min: -5, max: 100 }).map(String),
  fc.double({ min: 0, max: 10, noNaN: true }).map((n) => n.toFixed(2)),
  fc.stringMatching(/^[a-z ]{0,6}$/).map((s) => `'${s}'`),
  fc.constantFrom('true', 'false', 'null'),
);
const unary = fc.constantFrom('!', '-', '+', '~', 'typeof ', 'void ', 'delete ');
const binary = fc.constantFrom(
  '+',
  '-',
  '*',
  '/',
  '%',
  '**',
  '==',
  '!=',
  '===',
  '!==',
  '<',
  '<=',
  '>',
  '>=',
  '&&',
  '||',
  '??',
  '|',
  '&',
  '^',
  '<<',
  '>>',
  '>>>',
  ' in ',
  ' instanceof ',
);

/** Sources of expressions, by jsep's grammar forms (some parse only with plugins jsep is not given: they are parse errors). */
const expression: fc.Arbitrary<string> = fc.letrec<{ expr: string; member: string; call: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    literal,
    name,
    tie('member'),
    tie('call'),
    fc.tuple(unary, tie('expr')).map(([op, e]) => `${op}(${e})`),
    fc.tuple(tie('expr'), binary, tie('expr')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
    fc.tuple(tie('expr'), tie('expr'), tie('expr')).map(([a, b, c]) => `(${a}) ? (${b}) : (${c})`),
    fc.array(tie('expr'), { maxLength: 3 }).map((items) => `[${items.join(', ')}]`),
    fc.tuple(field, tie('expr')).map(([k, v]) => `{ ${k}: ${v} }`),
    fc.tuple(name, tie('expr')).map(([p, body]) => `(${p}) => ${body}`),
    tie('expr').map((e) => `\`text \${${e}}\``),
    fc.tuple(tie('expr'), tie('expr')).map(([a, b]) => `${a}, ${b}`),
    fc.constantFrom('this', 'new Date()', 'a = 1', 'a++', 'x?.y', '(1)(2)', 'len(x)(1)', "'s'.trim()()"),
  ),
  member: fc.oneof(
    fc.tuple(name, fc.array(field, { minLength: 1, maxLength: 3 })).map(([root, path]) => [root, ...path].join('.')),
    fc.tuple(name, tie('expr')).map(([root, key]) => `${root}[${key}]`),
  ),
  call: fc.oneof(
    fc.tuple(fn, fc.array(tie('expr'), { maxLength: 2 })).map(([f, args]) => `${f}(${args.join(', ')})`),
    fc
      .tuple(tie('member'), method, fc.array(tie('expr'), { maxLength: 2 }))
      .map(([target, m, args]) => `(${target}).${m}(${args.join(', ')})`),
    fc.tuple(tie('expr'), fc.array(tie('expr'), { maxLength: 1 })).map(([callee, args]) => `(${callee})(${args.join(', ')})`),
  ),
})).expr;

describe('engine: what validates runs', () => {
  it('refuses an array literal at publish with the message the evaluator gives at run time', () => {
    const published = validates('${{ [1, 2, 3] }}');
    assert.equal(published.ok, false);
    const atRunTime = evaluationRefusal('[1, 2, 3]');
    assert.equal(atRunTime, 'array literals are not supported; keep lists in variables');
    assert.deepEqual(published.messages, [`expression "[1, 2, 3]": ${atRunTime}`]);
    // The same in a template of a step config.
    const inTemplate = validateDefinition({
      name: 't',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        log: { type: 'module', pluginType: 'log', config: { message: 'n=${{ [1, 2, 3] }}' }, dependsOn: ['start'] },
      },
    });
    assert.deepEqual(inTemplate.errors, [{ path: '/steps/log/config/message', message: `expression "[1, 2, 3]": ${atRunTime}` }]);
  });

  it('refuses each form the evaluator refuses, in its words', () => {
    for (const [source, message] of [
      ['~variables.n', 'operator "~" is not supported'],
      ['variables.a | 1', 'operator "|" is not supported'],
      ['2 ** 3', 'operator "**" is not supported'],
      ['this', '"ThisExpression" is not supported in expressions'],
      ['variables.a, variables.b', '"Compound" is not supported in expressions'],
      ['eval(1)', 'unknown function "eval()"'],
      ['len(variables.list)(1)', 'only named functions and string or array methods can be called'],
      ['variables.constructor', 'property "constructor" is not accessible'],
    ]) {
      const published = validates(source);
      assert.equal(published.ok, false, source);
      assert.match(published.messages[0], new RegExp(message.replace(/[()|*"~]/g, '\\$&')), source);
      assert.equal(evaluationRefusal(source), message, source);
    }
  });

  it('property: an expression the validator accepts is never refused as a form by the evaluator', () => {
    let accepted = 0;
    fc.assert(
      fc.property(expression, (source) => {
        if (!validates(source).ok) return;
        accepted += 1;
        assert.equal(evaluationRefusal(source), undefined, `validated, yet the evaluator refuses: ${source}`);
      }),
      { numRuns: 2000 },
    );
    assert.ok(accepted > 100, `only ${accepted} generated expressions validated: the property says little`);
  });
});
