import assert from 'node:assert/strict';
import fc from 'fast-check';
import { canonicalNrn, contains, containingNrns, formatNrn, isValidNrn, isVisibleTo, NRN_LEVELS, parseNrn } from '../../api/access/nrn';

/**
 * Reference model: containment as one regular expression over the inner NRN's
 * text. Each level the outer NRN names must appear with the same id (`*` turned
 * into "any id"); a level it skips may or may not appear; anything may follow.
 */
function referenceContains(outer: string, inner: string): boolean {
  const named = new Map(outer.split(':').map((segment) => segment.split('=') as [string, string]));
  const deepest = Math.max(...[...named.keys()].map((level) => NRN_LEVELS.indexOf(level as (typeof NRN_LEVELS)[number])));
  let source = '';
  NRN_LEVELS.slice(0, deepest + 1).forEach((level, i) => {
    const sep = i === 0 ? '' : ':';
    const value = named.get(level);
    if (value === undefined) source += `(?:${sep}${level}=(?:[0-9]+|\\*))?`;
    else source += `${sep}${level}=${value === '*' ? '(?:[0-9]+|\\*)' : value}`;
  });
  return new RegExp(`^${source}(?::.*)?$`).test(inner);
}

const id = fc.oneof(fc.constantFrom('1', '2', '3', '*'), fc.integer({ min: 0, max: 1e9 }).map(String));
const smallId = fc.constantFrom('1', '2', '*');
/** NRN text with 1 to 5 levels, lower levels optionally skipped. */
const nrnOf = (ids: fc.Arbitrary<string>) =>
  fc
    .tuple(ids, fc.array(fc.option(ids, { nil: undefined }), { minLength: 0, maxLength: 4 }), ids)
    .map(([org, middle, last]) => [org, ...middle, ...(middle.length < 4 ? [last] : [])])
    .map((list) => list.flatMap((v, i) => (v === undefined ? [] : [`${NRN_LEVELS[i]}=${v}`])).join(':'));
const nrn = nrnOf(id);

describe('NRN module', () => {
  it('accepts the documented forms and refuses the rest', () => {
    for (const ok of [
      'organization=1',
      'organization=*',
      'organization=1:account=2:namespace=3:application=4:scope=5',
      'organization=1:account=*:namespace=3',
    ]) {
      assert.ok(isValidNrn(ok), ok);
    }
    for (const bad of [
      '',
      'organization=',
      'account=1',
      'organization=1:account=2:',
      'organization=a',
      'organization=1*2',
      'organization=1:account=2:account=3',
      'organization=1:namespace=2:account=3',
      ' organization=1',
      'organization=1\n',
      `organization=${'1'.repeat(19)}`,
      `organization=1:${'x'.repeat(200)}`,
    ]) {
      assert.equal(isValidNrn(bad), false, JSON.stringify(bad));
    }
  });

  it('round-trips parse and format', () => {
    fc.assert(fc.property(nrn, (text) => formatNrn(parseNrn(text)!) === text));
  });

  it('canonicalizes leading zeros', () => {
    assert.equal(canonicalNrn('organization=007:account=*'), 'organization=7:account=*');
  });

  it('containment agrees with the reference model', () => {
    fc.assert(
      fc.property(nrnOf(smallId), nrnOf(smallId), (a, b) => contains(a, b) === referenceContains(a, b)),
      { numRuns: 2000 },
    );
    fc.assert(fc.property(nrn, nrn, (a, b) => contains(a, b) === referenceContains(a, b)));
  });

  it('containment is reflexive and transitive; concrete NRNs contain only descendants', () => {
    fc.assert(fc.property(nrn, (a) => contains(a, a)));
    fc.assert(
      fc.property(nrnOf(smallId), nrnOf(smallId), nrnOf(smallId), (a, b, c) => !(contains(a, b) && contains(b, c)) || contains(a, c)),
      { numRuns: 3000 },
    );
    assert.ok(contains('organization=1', 'organization=1:account=2:namespace=3'));
    assert.ok(!contains('organization=1:account=2', 'organization=1'));
    assert.ok(!contains('organization=1', 'organization=12'));
    assert.ok(contains('organization=1:account=*', 'organization=1:account=9:scope=1'.replace(':scope=1', '')));
    assert.ok(!contains('organization=1:account=9', 'organization=1:account=*'));
    assert.ok(contains('organization=1:namespace=3', 'organization=1:account=9:namespace=3:scope=2'));
    assert.ok(!contains('organization=1:namespace=3', 'organization=1:account=9'));
  });

  it('containingNrns lists exactly the NRNs that contain the given one', () => {
    fc.assert(
      fc.property(
        nrnOf(smallId),
        nrnOf(smallId),
        (outer, inner) => containingNrns(parseNrn(inner)!).includes(outer) === contains(outer, inner),
      ),
      { numRuns: 3000 },
    );
  });

  it('visibility admits a caller when some visible_to entry contains it', () => {
    fc.assert(
      fc.property(
        fc.array(nrnOf(smallId), { maxLength: 4 }),
        nrnOf(smallId),
        (list, caller) => isVisibleTo(list, caller) === list.some((entry) => referenceContains(entry, caller)),
      ),
    );
    assert.ok(isVisibleTo(['organization=1:account=*'], 'organization=1:account=4:namespace=2'));
    assert.ok(!isVisibleTo(['organization=1:account=3'], 'organization=1:account=4'));
    assert.ok(!isVisibleTo(['not-an-nrn'], 'organization=1'));
  });
});
