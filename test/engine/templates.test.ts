import assert from 'node:assert/strict';
import { applyDeferred, deferredSecretNames, resolveTemplates, scopeForDeferred, type DeferredTemplate } from '../../workflows/engine';

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

  it('leaves strings that read a secret for the activity, reporting where they are', () => {
    const config = { auth: 'Bearer ${{ secrets.API_TOKEN }}', id: '${{ workflow.inputs.id }}', list: [{ key: '${{ secrets.KEY }}' }] };
    const deferred: DeferredTemplate[] = [];
    const resolved = resolveTemplates(config, scope, {
      onDeferred: (path, template) => deferred.push({ target: 'config', path, template }),
    });
    assert.deepEqual(resolved, { auth: 'Bearer ${{ secrets.API_TOKEN }}', id: 42, list: [{ key: '${{ secrets.KEY }}' }] });
    assert.deepEqual(deferred, [
      { target: 'config', path: ['auth'], template: 'Bearer ${{ secrets.API_TOKEN }}' },
      { target: 'config', path: ['list', 0, 'key'], template: '${{ secrets.KEY }}' },
    ]);
    assert.deepEqual(deferredSecretNames(deferred), ['API_TOKEN', 'KEY']);
  });

  it('never parses what a template yields: data that looks like a template stays text', () => {
    const data = { workflow: { inputs: { body: '${{ secrets.KEY }}', nested: { x: ["${{ secrets.KEY.split('').join(' ') }}"] } } } };
    const deferred: DeferredTemplate[] = [];
    const onDeferred = (path: Array<string | number>, template: string) => deferred.push({ target: 'config', path, template });
    const resolved = resolveTemplates(
      { whole: '${{ workflow.inputs.body }}', mixed: 'got ${{ workflow.inputs.body }}', deep: '${{ workflow.inputs.nested }}' },
      data,
      { onDeferred },
    );
    assert.deepEqual(resolved, {
      whole: '${{ secrets.KEY }}',
      mixed: 'got ${{ secrets.KEY }}',
      deep: { x: ["${{ secrets.KEY.split('').join(' ') }}"] },
    });
    assert.deepEqual(deferred, [], 'nothing from data is handed to the activity');
    assert.deepEqual(deferredSecretNames(deferred), []);
    // The activity's half places only the deferred templates: the same data passes through untouched.
    const placed = applyDeferred({ config: resolved, inputs: {} }, [], { secrets: { KEY: 'k' } });
    assert.deepEqual(placed.config, resolved);
  });

  it('places each deferred template, evaluated with the secrets, at its path and nowhere else', () => {
    const deferred: DeferredTemplate[] = [
      { target: 'config', path: ['headers', 'auth'], template: 'Bearer ${{ secrets.KEY }}' },
      { target: 'inputs', path: ['list', 1], template: '${{ secrets.KEY }}' },
      { target: 'inputs', path: ['__proto__'], template: '${{ secrets.KEY }}' },
    ];
    const config = { headers: { auth: 'Bearer ${{ secrets.KEY }}', echo: '${{ secrets.KEY }}' } };
    const inputs = JSON.parse('{"list": ["a", "${{ secrets.KEY }}"], "__proto__": "x"}') as Record<string, unknown>;
    const placed = applyDeferred({ config, inputs }, deferred, { secrets: { KEY: 'k' } });
    assert.deepEqual(placed.config, { headers: { auth: 'Bearer k', echo: '${{ secrets.KEY }}' } });
    assert.deepEqual(placed.inputs.list, ['a', 'k']);
    assert.equal(Object.getPrototypeOf(placed.inputs), Object.prototype, 'a __proto__ key stays a plain key');
    assert.equal(Object.getOwnPropertyDescriptor(placed.inputs, '__proto__')?.value, 'k');
    assert.equal(config.headers.auth, 'Bearer ${{ secrets.KEY }}', 'the call values are not mutated');
  });

  it('hands the activity the other roots that a template reading a secret also reads', () => {
    const at = (template: string): DeferredTemplate => ({ target: 'config', path: [], template });
    const scope = { vars: { PREFIX: 'p', BASE: 'b' }, steps: { big: {} }, $item: { id: 7 }, variables: {}, secrets: { KEY: 'never' } };
    assert.deepEqual(scopeForDeferred([at('${{ vars.PREFIX + secrets.KEY + $item.id }}'), at('Bearer ${{ secrets.KEY }}')], scope), {
      vars: { PREFIX: 'p', BASE: 'b' },
      $item: { id: 7 },
    });
    assert.equal(scopeForDeferred([at('Bearer ${{ secrets.KEY }}')], scope), undefined);
    assert.equal(scopeForDeferred([], scope), undefined);
  });
});
