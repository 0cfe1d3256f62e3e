import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ExpressionError, evaluateExpression, isTruthy } from '../../workflows/engine';

const scope = {
  workflow: { inputs: { name: 'Ada', count: 3, tags: ['a', 'b'] }, variables: { acc: [1] } },
  variables: { acc: [1], limit: 10 },
  steps: { fetch: { outputs: { status: 200, body: { id: 'x-1' } }, items: [{ id: 1 }, { id: 2 }], status: 'completed', error: null } },
  execution: { id: 'exec_1', correlationKey: 'item:9' },
  $item: { id: 7, name: ' padded ' },
  $itemIndex: 2,
  $items: [{ id: 1 }],
  $itemsLength: 1,
  inputs: { q: 'term' },
};

const cases: Array<[string, unknown]> = [
  ['workflow.inputs.name', 'Ada'],
  ['workflow.inputs.count * 2 + 1', 7],
  ['workflow.inputs.count % 2', 1],
  ['steps.fetch.outputs.status == 200', true],
  ['steps.fetch.outputs.status != 200', false],
  ["steps.fetch.outputs.body['id']", 'x-1'],
  ['steps.fetch.items[1].id', 2],
  ['steps.fetch.items.length', 2],
  ["steps.fetch.status == 'completed' && variables.limit > 5", true],
  ['steps.missing.outputs.x', undefined],
  ["workflow.inputs.nothing || 'fallback'", 'fallback'],
  ["workflow.inputs.nothing ?? 'default'", 'default'],
  ["workflow.inputs.count > 2 ? 'many' : 'few'", 'many'],
  ["'id-' + $item.id", 'id-7'],
  ['$item.name.trim()', 'padded'],
  ["$item.name.trim().toUpperCase().startsWith('PAD')", true],
  ['len(workflow.inputs.tags)', 2],
  ["contains(workflow.inputs.tags, 'b')", true],
  ["contains('abcdef', 'cd')", true],
  ['concat(variables.acc, $items)', [1, { id: 1 }]],
  ["concat('a', 1, true)", 'a1true'],
  ['!steps.fetch.error', true],
  ['-workflow.inputs.count', -3],
  ['null == undefined', true],
  ["1 == '1'", false],
  ["'b' > 'a'", true],
  ['$itemIndex + $itemsLength', 3],
  ["execution.correlationKey.split(':')[1]", '9'],
  ["workflow.inputs.tags.join('|')", 'a|b'],
  ['inputs.q', 'term'],
];

describe('expression evaluator', () => {
  it('refuses to build huge values or run long: a short expression cannot make megabytes', () => {
    const limited = (source: string, extra: Record<string, unknown> = {}, code = 'EXPRESSION_LIMIT_EXCEEDED') =>
      assert.throws(
        () => evaluateExpression(source, { ...scope, ...extra }),
        (error: unknown) => error instanceof ExpressionError && error.code === code,
        source.slice(0, 80),
      );
    // Under 60 characters, each of these would build 10 MB to 100 MB.
    limited("'x'.padStart(9999).split('').join('x'.padStart(9999))");
    limited("'x'.padStart(9999).replace(' ', 'x'.padStart(9999))");
    limited('concat(big, big, big, big, big, big, big, big, big, big, big)', { big: 'x'.repeat(100_000) });
    limited('big + big + big + big + big + big + big + big + big + big + big', { big: 'x'.repeat(100_000) });
    limited('list.concat(list, list)', { list: Array.from({ length: 40_000 }, (_, i) => i) });
    // Deep nesting is refused when parsed (every walker recurses); many shallow operations by the budget.
    limited(`1${' + 1'.repeat(6000)}`, {}, 'EXPRESSION_PARSE_ERROR');
    limited(Array.from({ length: 200 }, () => `concat(${Array.from({ length: 60 }, () => 'a').join(', ')})`).join(' + '), { a: 'x' });
    // Within the limits, the same operations still work.
    assert.equal(evaluateExpression("'ab'.replace('b', 'cd')", scope), 'acd');
    assert.equal((evaluateExpression("'x'.padStart(999).split('').join('-')", scope) as string).length, 1997);
    assert.equal(evaluateExpression(`1${' + 1'.repeat(100)}`, scope), 101);
  });

  for (const [source, expected] of cases) {
    it(`${source} → ${JSON.stringify(expected)}`, () => {
      assert.deepEqual(evaluateExpression(source, scope), expected);
    });
  }

  it('has JavaScript truthiness ([] and {} are truthy)', () => {
    for (const value of [null, undefined, false, 0, NaN, '']) assert.equal(isTruthy(value), false);
    for (const value of [[], {}, '0', 'false', 1]) assert.equal(isTruthy(value), true);
  });

  const rejected: Array<[string, RegExp]> = [
    ['unknownRoot.x', /unknown name "unknownRoot"/],
    ['workflow.constructor', /not accessible/],
    ["workflow['__proto__']", /not accessible/],
    ['$item.name.constructor.constructor', /not accessible/],
    ['workflow.inputs.name.toString.call(1)', /not available|not accessible/],
    ['eval("1")', /unknown function "eval\(\)"/],
    ['[1, 2]', /array literals/],
    ["'a' * 2", /needs numbers/],
    ['workflow.inputs.tags.push(3)', /method "push" is not available/],
    ['this', /not supported/],
    ['1 +', /does not parse/],
  ];
  for (const [source, message] of rejected) {
    it(`rejects ${source}`, () => {
      assert.throws(
        () => evaluateExpression(source, scope),
        (error: unknown) => error instanceof ExpressionError && message.test(error.message),
      );
    });
  }

  it('never escapes to anything but a value or an ExpressionError, and never pollutes prototypes', () => {
    const fragment = fc.constantFrom(
      'workflow',
      'inputs',
      'steps',
      '$item',
      '.',
      '[',
      ']',
      '(',
      ')',
      "'__proto__'",
      'constructor',
      'prototype',
      '+',
      '-',
      '*',
      '/',
      '==',
      '&&',
      '||',
      '!',
      '?',
      ':',
      '1',
      "'x'",
      'len',
      'concat',
      'contains',
      ',',
      ' ',
      'trim',
      'name',
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 14 }), (parts) => {
        try {
          evaluateExpression(parts.join(''), scope);
        } catch (error) {
          assert.ok(error instanceof ExpressionError, `threw ${String(error)} for ${parts.join('')}`);
        }
        assert.equal(({} as Record<string, unknown>).polluted, undefined);
      }),
      { numRuns: 2000 },
    );
  });
});
