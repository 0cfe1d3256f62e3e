/**
 * GET /workflows/config?path=…&descendants=true: the folder's entries and those
 * of every folder beneath it, by folder then name (how the console finds entries
 * kept in sub-folders from `/`). Only folder entries, only the caller's
 * organization, only the ones the caller may read; `/teamwork` is not beneath
 * `/team`. Errors in the config dialect.
 */
import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { grantRole } from '../support/grants';
import { definition } from '../support/definitions';
import { wfContext, type WfEnv, type WfOrg } from './support';

describe('workflows API: config entries beneath a folder', () => {
  let env: WfEnv;
  let org: WfOrg;
  const post = (body: object) => org.auth(env.t.request.post('/workflows/config')).send(body);
  const list = (query: string, bearer = `Bearer ${org.token}`) =>
    env.t.request.get(`/workflows/config${query}`).set('Authorization', bearer);
  const places = (body: { data: Array<{ path?: string; workflow?: string; name: string }> }) =>
    body.data.map((e) => `${e.path ?? `wf:${e.workflow}`} ${e.name}`);

  before(async () => {
    ({ env, org } = await wfContext());
    assert.equal((await org.auth(env.t.request.put('/workflows/definitions/flow')).send(definition('F', { path: '/team' }))).status, 201);
    for (const [name, place] of [
      ['ROOT', { path: '/' }],
      ['TEAM', { path: '/team' }],
      ['DEEP', { path: '/team/app/eu' }],
      ['APP', { path: '/team/app' }],
      ['NEIGHBOUR', { path: '/teamwork' }],
      ['OWN', { workflow: 'flow' }],
      ['GUARDED', { path: '/team/app', nrn: `organization=${org.id}:account=9` }],
    ] as const) {
      const res = await post({ name, value: `${name.toLowerCase()}-value`, ...place });
      assert.equal(res.status, 201, res.text);
    }
    const foreign = await env.t.request
      .post('/workflows/config')
      .set('Authorization', `Bearer ${org.other.token}`)
      .send({ name: 'FOREIGN', value: 'v', path: '/team' });
    assert.equal(foreign.status, 201);
  });

  it('lists the folder and every folder beneath it, by folder then name, each with its path', async () => {
    const team = await list('?path=/team&descendants=true');
    assert.equal(team.status, 200, team.text);
    assert.deepEqual(places(team.body), ['/team TEAM', '/team/app APP', '/team/app GUARDED', '/team/app/eu DEEP']);
    const root = await list('?path=/&descendants=true');
    assert.deepEqual(places(root.body), [
      '/ ROOT',
      '/team TEAM',
      '/team/app APP',
      '/team/app GUARDED',
      '/team/app/eu DEEP',
      '/teamwork NEIGHBOUR',
    ]);
    // Without the flag, one folder as before.
    assert.deepEqual(places((await list('?path=/team')).body), ['/team TEAM']);
    assert.deepEqual(places((await list('?path=/nowhere&descendants=true')).body), []);
  });

  it('shows only the entries the caller may read', async () => {
    const { userId } = await grantRole(env.db, org.id, 'developer', `organization=${org.id}:account=9`);
    const bearer = `Bearer ${await env.t.token({ organizationId: org.id, userId })}`;
    const res = await list('?path=/&descendants=true', bearer);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(places(res.body), ['/team/app GUARDED']);
  });

  it('applies to a folder path only, without ancestors (400 invalid_place)', async () => {
    for (const query of ['?workflow=flow&descendants=true', '?path=/team&ancestors=true&descendants=true']) {
      const res = await list(query);
      assertDialect('config', res, 400);
      assert.equal(res.body.error, 'invalid_place', res.text);
    }
    // A flag that is not a boolean is refused, not read as false.
    assertDialect('config', await list('?path=/team&descendants=maybe'), 400);
  });
});
