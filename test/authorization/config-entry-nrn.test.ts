/**
 * Folder config entries carry an NRN (default: the organization's) that guards them:
 * creating, rotating and deleting need config:write on it, reading config:read;
 * listing a folder shows the entries whose NRN the caller may read. Errors in the
 * config dialect `{error, message}`.
 */
import assert from 'node:assert/strict';
import type { Test } from 'supertest';
import { assertDialect } from '../support/dialects';
import { testDataSource } from '../support/database';
import { grantRole } from '../support/grants';
import { engineAuthz, type EngineEnv, type EngineOrg } from './support';

describe('engine authorization: the nrn of folder config entries', () => {
  let env: EngineEnv;
  let org: EngineOrg;
  /** Bearer headers: an admin on account=7 only (config:write there), a developer on account=7 only (config:read there). */
  let teamAdmin: string;
  let teamDeveloper: string;
  const as = (bearer: string) => (req: Test) => req.set('Authorization', bearer);
  const account = (n: number) => `organization=${org.id}:account=${n}`;

  before(async () => {
    ({ env, org } = await engineAuthz());
    const db = await testDataSource();
    const token = async (role: string, nrn: string) =>
      `Bearer ${await env.t.token({ organizationId: org.id, userId: (await grantRole(db, org.id, role, nrn)).userId })}`;
    teamAdmin = await token('admin', account(7));
    teamDeveloper = await token('developer', account(7));
  });

  const post = (bearer: string, body: Record<string, unknown>) => as(bearer)(env.t.request.post('/workflows/config')).send(body);

  it('defaults to the organization, keeps a given nrn in canonical form, and answers it', async () => {
    const plain = await post(org.as.admin, { name: 'PLAIN', value: 'v', path: '/nrn-a' });
    assert.equal(plain.status, 201, plain.text);
    assert.equal(plain.body.nrn, `organization=${org.id}`);
    const team = await post(org.as.admin, { name: 'TEAM', value: 'v', path: '/nrn-a', nrn: `organization=${org.id}:account=007` });
    assert.equal(team.status, 201, team.text);
    assert.equal(team.body.nrn, account(7));
    const read = await as(org.as.admin)(env.t.request.get(`/workflows/config/${team.body.id}`)).expect(200);
    assert.equal(read.body.nrn, account(7));
  });

  it('refuses an nrn that is not one resource inside the organization, or that is given for a workflow entry (400 invalid_nrn)', async () => {
    await as(org.as.admin)(env.t.request.put('/workflows/definitions/nrn-holder')).send({
      name: 'holder',
      steps: { start: { type: 'trigger', pluginType: 'manual' } },
      connections: [],
    });
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ path: '/x', nrn: 'organization=999999:account=7' }, /must lie inside your organization/],
      [{ path: '/x', nrn: `organization=${org.id}:account=*` }, /no \* wildcards/],
      [{ path: '/x', nrn: 'account=7' }, /is not a valid NRN/],
      [{ path: '/x', nrn: 7 }, /nrn must be a string/],
      [{ workflow: 'nrn-holder', nrn: account(7) }, /folder entries only/],
    ];
    for (const [place, message] of cases) {
      const res = await post(org.as.admin, { name: 'BAD', value: 'v', ...place });
      assertDialect('config', res, 400);
      assert.equal(res.body.error, 'invalid_nrn');
      assert.match(res.body.message, message);
    }
    const listed = await as(org.as.admin)(env.t.request.get('/workflows/config?path=/x')).expect(200);
    assert.deepEqual(listed.body.data, [], 'nothing written');
  });

  it('writing needs config:write on the entry nrn: 403 at the organization, 201/200/204 in the account', async () => {
    // Default nrn (the organization) and another account are out of the team admin's grants.
    for (const nrn of [undefined, account(8)]) {
      const refused = await post(teamAdmin, { name: 'T', value: 'v', path: '/team-w', ...(nrn ? { nrn } : {}) });
      assertDialect('config', refused, 403);
      assert.match(refused.body.message, new RegExp(`config:write permission on ${nrn ?? `organization=${org.id}`}\\.`));
    }
    const created = await post(teamAdmin, { name: 'T', value: 'v1', path: '/team-w', nrn: account(7) });
    assert.equal(created.status, 201, created.text);
    // Rotating by name and place keeps the entry's nrn, given or not.
    const rotated = await post(teamAdmin, { name: 'T', value: 'v2', path: '/team-w' });
    assert.equal(rotated.status, 200, rotated.text);
    assert.deepEqual([rotated.body.id, rotated.body.nrn, rotated.body.value], [created.body.id, account(7), 'v2']);
    await as(teamAdmin)(env.t.request.patch(`/workflows/config/${created.body.id}`))
      .send({ value: 'v3' })
      .expect(200);

    // An organization-level entry: the team admin can neither rotate, read, patch nor delete it.
    const orgEntry = await post(org.as.admin, { name: 'ORG', value: 'root', path: '/team-w' });
    assert.equal(orgEntry.status, 201, orgEntry.text);
    for (const res of [
      await post(teamAdmin, { name: 'ORG', value: 'mine now', path: '/team-w' }),
      await post(teamAdmin, { name: 'ORG', value: 'mine now', path: '/team-w', nrn: account(7) }),
      await as(teamAdmin)(env.t.request.patch(`/workflows/config/${orgEntry.body.id}`)).send({ value: 'mine now' }),
      await as(teamAdmin)(env.t.request.delete(`/workflows/config/${orgEntry.body.id}`)),
      await as(teamDeveloper)(env.t.request.get(`/workflows/config/${orgEntry.body.id}`)),
    ]) {
      assertDialect('config', res, 403);
    }
    const still = await as(org.as.admin)(env.t.request.get(`/workflows/config/${orgEntry.body.id}`)).expect(200);
    assert.equal(still.body.value, 'root');
    await as(teamAdmin)(env.t.request.delete(`/workflows/config/${created.body.id}`)).expect(204);
  });

  it('the nrn of an entry never changes (409 nrn_immutable), by POST or PATCH', async () => {
    const created = await post(org.as.admin, { name: 'FIXED', value: 'v', path: '/fixed', nrn: account(7) });
    assert.equal(created.status, 201, created.text);
    const moved = await post(org.as.admin, { name: 'FIXED', value: 'v2', path: '/fixed', nrn: `organization=${org.id}` });
    assertDialect('config', moved, 409);
    assert.equal(moved.body.error, 'nrn_immutable');
    const patched = await as(org.as.admin)(env.t.request.patch(`/workflows/config/${created.body.id}`)).send({
      value: 'v2',
      nrn: account(8),
    });
    assertDialect('config', patched, 409);
    assert.equal(patched.body.error, 'nrn_immutable');
    const read = await as(org.as.admin)(env.t.request.get(`/workflows/config/${created.body.id}`)).expect(200);
    assert.deepEqual([read.body.nrn, read.body.value], [account(7), 'v']);
  });

  it('a folder lists the entries whose nrn the caller may read; without any grant in the organization, 404 not_found', async () => {
    await post(org.as.admin, { name: 'ROOTISH', value: 'r', path: '/listed' });
    await post(org.as.admin, { name: 'SEVEN', value: 's', path: '/listed', nrn: account(7) });
    await post(org.as.admin, { name: 'EIGHT', value: 'e', path: '/listed', nrn: account(8) });
    const names = async (bearer: string) => {
      const res = await as(bearer)(env.t.request.get('/workflows/config?path=/listed')).expect(200);
      return (res.body.data as Array<{ name: string }>).map((e) => e.name).sort();
    };
    assert.deepEqual(await names(org.as.admin), ['EIGHT', 'ROOTISH', 'SEVEN']);
    assert.deepEqual(await names(teamDeveloper), ['SEVEN']);
    assertDialect('config', await as(org.as.none)(env.t.request.get('/workflows/config?path=/listed')), 404);
    assert.deepEqual(await names(org.as.other), [], "another organization's folder of that path is its own");
  });

  it("a workflow's listing with ancestors marks as effective only entries within the workflow NRN", async () => {
    const published = await as(org.as.admin)(env.t.request.put('/workflows/definitions/eff-holder')).send({
      name: 'holder',
      nrn: account(7),
      path: '/eff',
      steps: { start: { type: 'trigger', pluginType: 'manual' } },
      connections: [],
    });
    assert.equal(published.status, 201, published.text);
    // Nearer but at the organization (out of the workflow's reach), farther but in its account.
    await post(org.as.admin, { name: 'K', value: 'near', path: '/eff' }).expect(201);
    await post(org.as.admin, { name: 'K', value: 'far', path: '/', nrn: account(7) }).expect(201);
    const listed = await as(org.as.admin)(env.t.request.get('/workflows/config?workflow=eff-holder&ancestors=true')).expect(200);
    const flags = (listed.body.data as Array<{ name: string; value: string; effective: boolean }>)
      .filter((e) => e.name === 'K')
      .map((e) => [e.value, e.effective]);
    assert.deepEqual(flags, [
      ['near', false],
      ['far', true],
    ]);
    // The team's developer, reading the same workflow, sees only the entry it may read.
    const team = await as(teamDeveloper)(env.t.request.get('/workflows/config?workflow=eff-holder&ancestors=true')).expect(200);
    assert.deepEqual(
      (team.body.data as Array<{ name: string; value: string }>).filter((e) => e.name === 'K').map((e) => e.value),
      ['far'],
    );
  });
});
