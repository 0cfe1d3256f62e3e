import assert from 'node:assert/strict';
import { deferredSegmentSources, hasDeferredSegments, resolveTemplates, scopeForDeferred } from '../../workflows/engine';

const scope = {
  workflow: { inputs: { id: 42, user: { name: 'Ada' }, list: [1, 2] } },
  steps: { a: { outputs: { ok: true } } },
  vars: { REGION: 'eu-west-1' },
};

describe('template substitution', () => {
  it('keeps the type of a whole-value template', () => {
    assert.equal(resolveTemplates('${{ workflow.inputs.id }}', scope), 42);
    assert.deepEqual(resolveTemplates(' ${{ workflow.inputs.list }} ', scope), [1, 2]);
    assert.equal(resolveTemplates('${{ steps.a.outputs.ok }}', scope), true);
  });

  it('stringifies embedded templates', () => {
    assert.equal(resolveTemplates('user ${{ workflow.inputs.user.name }} #${{ workflow.inputs.id }}', scope), 'user Ada #42');
    assert.equal(resolveTemplates('list=${{ workflow.inputs.list }} none=${{ workflow.inputs.none }}', scope), 'list=[1,2] none=');
  });

  it('walks nested objects and arrays without mutating them', () => {
    const config = {
      url: 'https://api/${{ vars.REGION }}/items/${{ workflow.inputs.id }}',
      headers: [{ x: '${{ workflow.inputs.id }}' }],
      n: 5,
    };
    const resolved = resolveTemplates(config, scope);
    assert.deepEqual(resolved, { url: 'https://api/eu-west-1/items/42', headers: [{ x: 42 }], n: 5 });
    assert.equal(config.headers[0].x, '${{ workflow.inputs.id }}');
  });

  it('leaves secret references for the activity to resolve', () => {
    const config = { auth: 'Bearer ${{ secrets.API_TOKEN }}', id: '${{ workflow.inputs.id }}', whole: '${{ secrets.KEY }}' };
    const resolved = resolveTemplates(config, scope);
    assert.deepEqual(resolved, { auth: 'Bearer ${{ secrets.API_TOKEN }}', id: 42, whole: '${{ secrets.KEY }}' });
    assert.equal(hasDeferredSegments(resolved), true);
    assert.equal(hasDeferredSegments({ id: 42 }), false);
  });

  it('hands the activity the other roots that a segment reading a secret also reads', () => {
    const value = {
      url: "${{ vars.BASE + '/x' }}",
      header: '${{ vars.PREFIX + secrets.KEY + $item.id }}',
      plain: 'Bearer ${{ secrets.KEY }}',
    };
    const sources = deferredSegmentSources(value);
    assert.deepEqual(
      sources.map((s) => s.trim()),
      ['vars.PREFIX + secrets.KEY + $item.id', 'secrets.KEY'],
    );
    const scope = { vars: { PREFIX: 'p', BASE: 'b' }, steps: { big: {} }, $item: { id: 7 }, variables: {}, secrets: { KEY: 'never' } };
    assert.deepEqual(scopeForDeferred(sources, scope), { vars: { PREFIX: 'p', BASE: 'b' }, $item: { id: 7 } });
    assert.equal(scopeForDeferred(deferredSegmentSources({ a: 'Bearer ${{ secrets.KEY }}' }), scope), undefined);
    assert.equal(scopeForDeferred([], scope), undefined);
  });
});
