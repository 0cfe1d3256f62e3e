/**
 * A definition wrapped in `{definition: …}`, as one of the compatible
 * engine's quickstarts sends it: every route that takes a definition body
 * answers 400 problem+json saying to send the definition itself, and writes
 * nothing; the same definition sent bare is taken.
 */
import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { definition } from '../support/definitions';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

describe('workflows API: a definition wrapped in an envelope', () => {
  let env: WfEnv;
  let org: WfOrg;
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });

  function assertEnvelopeRefused(res: import('supertest').Response): void {
    assertDialect('problem', res, 400);
    assert.match(res.body.type, /\/definition-envelope$/);
    assert.match(res.body.detail, /wrapped in a \{"definition": …\} envelope: send the definition itself as the body/);
    assert.deepEqual(res.body.errors, [{ path: '/definition', message: 'send this object as the body, without the envelope' }]);
  }

  it('POST and PUT /workflows/definitions answer 400 and write nothing; bare, the same definition publishes', async () => {
    const wrapped = { definition: definition('Wrapped', { key: 'wrapped' }) };
    const before = await snapshot(env.db, org.id);
    assertEnvelopeRefused(await org.auth(env.t.request.post('/workflows/definitions')).send(wrapped));
    assertEnvelopeRefused(await org.auth(env.t.request.put('/workflows/definitions/wrapped')).send(wrapped));
    // Beside other fields too (an alias, a key): still an envelope, never a definition missing its steps.
    assertEnvelopeRefused(await org.auth(env.t.request.put('/workflows/definitions/wrapped')).send({ ...wrapped, alias: 'live' }));
    assert.deepEqual(await snapshot(env.db, org.id), before);

    await org.auth(env.t.request.put('/workflows/definitions/wrapped')).send(wrapped.definition).expect(201);
  });

  it('a YAML body with a top-level definition: is refused the same way', async () => {
    const yaml = [
      'definition:',
      '  name: Wrapped',
      '  steps:',
      '    - id: start',
      '      type: trigger',
      '      plugin_type: manual',
      '',
    ].join('\n');
    assertEnvelopeRefused(await org.auth(env.t.request.post('/workflows/definitions')).set('Content-Type', 'application/yaml').send(yaml));
  });

  it('both validate routes answer 400 instead of a report on a definition without name or steps', async () => {
    const wrapped = { definition: definition('Wrapped') };
    assertEnvelopeRefused(await org.auth(env.t.request.post('/workflows/definitions/validate')).send(wrapped));
    await org.auth(env.t.request.put('/workflows/definitions/host')).send(definition('Host')).expect(201);
    assertEnvelopeRefused(await org.auth(env.t.request.post('/workflows/definitions/host/validate')).send(wrapped));
    // Authorization still comes first: an unknown workflow is 404 whatever the body.
    assertDialect('problem', await org.auth(env.t.request.post('/workflows/definitions/nope/validate')).send(wrapped), 404);

    const bare = await org.auth(env.t.request.post('/workflows/definitions/validate')).send(wrapped.definition);
    assert.deepEqual(bare.body, { valid: true, errors: [], warnings: [] });
  });

  it('a definition field that is not an object is not an envelope: the definition is judged as usual', async () => {
    const res = await org.auth(env.t.request.post('/workflows/definitions/validate')).send({ ...definition('Odd'), definition: 'v2' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.valid, true);
    assert.deepEqual(
      res.body.warnings.map((w: { path: string }) => w.path),
      ['/definition'],
    );
  });
});
