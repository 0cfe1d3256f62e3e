/**
 * The console's JSON Schema interpreter (pure; runs where eval is forbidden, so
 * Ajv cannot compile there): the keywords its forms render, `$data` comparisons
 * between fields, readable constraints, and agreement with Ajv (the API's
 * validator) on the values the forms can produce.
 */
import assert from 'node:assert/strict';
import Ajv from 'ajv';
import fc from 'fast-check';
import {
  check,
  describeConstraints,
  issuesUnder,
  parseInput,
  parseLines,
  pointerTokens,
  resolveRelative,
  toPointer,
} from '../../console/src/forms/schema-form';

const replicas = {
  type: 'object',
  required: ['minReplicas', 'maxReplicas'],
  properties: {
    minReplicas: { type: 'integer', minimum: 1, description: 'At least one' },
    maxReplicas: { type: 'integer', minimum: { $data: '1/minReplicas' }, maximum: 100 },
    name: { type: 'string', minLength: 3, maxLength: { $data: '1/nameLimit' }, pattern: '^[a-z-]+$' },
    nameLimit: { type: 'integer' },
    size: { type: 'string', enum: ['small', 'large'] },
    tags: { type: 'array', items: { type: 'string' }, maxItems: 2 },
    network: {
      type: 'object',
      properties: { from: { type: 'integer' }, to: { type: 'integer', exclusiveMinimum: { $data: '1/from' } } },
    },
  },
};

describe('console JSON Schema forms', () => {
  it('flags a value below a sibling it is compared with through $data, and names the sibling', () => {
    assert.deepEqual(check(replicas, { minReplicas: 3, maxReplicas: 5 }), []);
    assert.deepEqual(check(replicas, { minReplicas: 3, maxReplicas: 2 }), [
      { path: '/maxReplicas', message: 'must be ≥ value of minReplicas (3)' },
    ]);
    // Nested: `1/from` is the sibling inside the same object.
    assert.deepEqual(check(replicas, { minReplicas: 1, maxReplicas: 1, network: { from: 10, to: 10 } }), [
      { path: '/network/to', message: 'must be > value of from (10)' },
    ]);
    // A reference to an absent field compares with nothing, as Ajv ignores it.
    assert.deepEqual(check(replicas, { minReplicas: 1, maxReplicas: 1, name: 'a-long-name' }), []);
    assert.deepEqual(check(replicas, { minReplicas: 1, maxReplicas: 1, name: 'abcdef', nameLimit: 4 }), [
      { path: '/name', message: 'length must be ≤ value of nameLimit (4)' },
    ]);
  });

  it('checks type, required, enum, pattern, lengths, bounds and array items', () => {
    const issues = check(replicas, { maxReplicas: 101, name: 'AB', size: 'huge', tags: ['a', 'b', 'c'] });
    assert.deepEqual(
      issues.map((i) => `${i.path} ${i.message}`),
      [
        '/minReplicas is required',
        '/maxReplicas must be ≤ 100',
        '/name length must be ≥ 3',
        '/name must match ^[a-z-]+$',
        '/size must be one of "small", "large"',
        '/tags must have ≤ 2 items',
      ],
    );
    assert.deepEqual(check(replicas, { minReplicas: 1.5, maxReplicas: 'x' }), [
      { path: '/minReplicas', message: 'must be integer' },
      { path: '/maxReplicas', message: 'must be integer' },
    ]);
  });

  it('describes constraints in words', () => {
    assert.deepEqual(describeConstraints(replicas.properties.maxReplicas), ['≥ value of minReplicas', '≤ 100']);
    assert.deepEqual(describeConstraints(replicas.properties.name), ['length ≥ 3', 'length ≤ value of nameLimit', 'matches ^[a-z-]+$']);
    assert.deepEqual(describeConstraints({ type: 'string' }), []);
  });

  it('resolves relative JSON pointers as Ajv does, and escapes pointers', () => {
    const root = { a: { b: 1, 'c/d': 2 }, list: [{ x: 5 }] };
    assert.equal(resolveRelative('1/b', ['a', 'x'], root), 1);
    assert.equal(resolveRelative('1/c~1d', ['a', 'x'], root), 2);
    assert.equal(resolveRelative('0', ['a', 'b'], root), 1);
    assert.equal(resolveRelative('2/a/b', ['list', '0'], root), 1);
    assert.equal(resolveRelative('3/a', ['a', 'b'], root), undefined);
    assert.equal(resolveRelative('1#', ['a', 'b'], root), undefined);
    assert.equal(resolveRelative('nonsense', ['a'], root), undefined);
    assert.deepEqual(pointerTokens(toPointer(['a/b', 'c~d'])), ['a/b', 'c~d']);
  });

  it('reads inputs as the schema types them', () => {
    assert.equal(parseInput({ type: 'integer' }, '42'), 42);
    assert.equal(parseInput({ type: 'integer' }, ''), undefined);
    assert.equal(parseInput({ type: 'number' }, 'abc'), 'abc');
    assert.equal(parseInput({ enum: [1, 2] }, '2'), 2);
    assert.deepEqual(parseLines({ type: 'integer' }, '1\n\n 2 \n'), [1, 2]);
  });

  it("places the API's field errors under the form's pointers", () => {
    assert.deepEqual(
      issuesUnder('/attributes/values', [
        { path: '/attributes/values/maxReplicas', message: 'must be >= 3' },
        { path: '/name', message: 'elsewhere' },
      ]),
      [{ path: '/maxReplicas', message: 'must be >= 3' }],
    );
  });

  it('agrees with Ajv ($data on) on whether a form value is valid', () => {
    const ajv = new Ajv({ $data: true, allErrors: true, strict: false });
    const validate = ajv.compile(replicas);
    const value = fc.record(
      {
        minReplicas: fc.oneof(fc.integer({ min: -3, max: 8 }), fc.constant(1.5)),
        maxReplicas: fc.integer({ min: -3, max: 120 }),
        name: fc.stringMatching(/^[a-zA-Z-]{0,8}$/),
        nameLimit: fc.integer({ min: 0, max: 8 }),
        size: fc.constantFrom('small', 'large', 'huge'),
        tags: fc.array(fc.constantFrom('a', 'b'), { maxLength: 3 }),
        network: fc.record({ from: fc.integer({ min: 0, max: 5 }), to: fc.integer({ min: 0, max: 5 }) }, { requiredKeys: [] }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(value, (v) => {
        assert.equal(check(replicas, v).length === 0, validate(v), JSON.stringify(v));
      }),
      { numRuns: 500 },
    );
  });
});
