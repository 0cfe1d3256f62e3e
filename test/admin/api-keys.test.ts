/**
 * API keys: created for the caller with grants that only narrow the caller's,
 * shown once, stored as a hash, exchanged at POST /token for a short-lived
 * token whose access is the key's narrowed grants, revoked at once.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { adminRoutes } from '../../api/admin';
import { createServiceTokens } from '../../api/http/service-tokens';
import { createTestApp } from '../support/app';
import { testDataSource } from '../support/database';
import { late } from '../support/late';
import { assertAdminError, bearer, newOrg, newUserId, userWithRole, type AdminEnv, type Org } from './support';

describe('API keys and POST /token', () => {
  const envRef = late<AdminEnv>('the app');
  const orgRef = late<Org>('the organization');
  before(async () => {
    const db = await testDataSource();
    const serviceTokens = createServiceTokens(randomBytes(32));
    const t = createTestApp({
      serviceTokens,
      routes: adminRoutes({ dataSource: db, serviceTokens, apiKeys: { defaultDays: 30, maxDays: 60, tokenTtlSeconds: 300 } }),
    });
    envRef.set({ t, db });
  });
  beforeEach(async () => orgRef.set(await newOrg(envRef.value)));
  const env = envRef.value;
  const org = orgRef.value;
  const http = () => env.t.request;

  async function createKey(token: string, grants: unknown[], extra: Record<string, unknown> = {}) {
    return http()
      .post('/api_key')
      .set(...bearer(token))
      .send({ name: 'ci', grants, tags: [{ key: 'team', value: 'build' }], ...extra });
  }
  const exchange = (body: Record<string, unknown>) => http().post('/token').send(body);

  it('answers the key once, lists it masked, stores only its hash, and audits the creation', async () => {
    const created = await createKey(org.admin, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }]);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers['cache-control'], 'no-store');
    const key: string = created.body.api_key;
    assert.match(key, /^npk_[\w-]{8}_[\w-]{43}$/);
    assert.deepEqual(Object.keys(created.body).sort(), [
      'api_key',
      'created_at',
      'expires_at',
      'grants',
      'id',
      'last_used_at',
      'masked_api_key',
      'name',
      'owner_id',
      'tags',
      'updated_at',
    ]);
    assert.equal(created.body.owner_id, org.adminId);
    assert.deepEqual(created.body.grants, [{ nrn: `organization=${org.id}`, role_id: 3, role_slug: 'viewer' }]);
    assert.equal(created.body.last_used_at, null);
    const days = (Date.parse(created.body.expires_at) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `default expiry: ${days} days`);
    const secret = key.slice(13);
    assert.ok(!created.body.masked_api_key.includes(secret.slice(0, 6)));

    const list = await http()
      .get('/api_key')
      .set(...bearer(org.admin));
    assert.equal(list.status, 200);
    assert.equal(list.body.paging.total, 1);
    const one = await http()
      .get(`/api_key/${created.body.id}`)
      .set(...bearer(org.admin));
    assert.equal(one.status, 200);
    for (const body of [list.body, one.body]) assert.ok(!JSON.stringify(body).includes(secret), 'the value never shows again');

    const [row] = await env.db.query(`SELECT key_hash, to_jsonb(k)::text AS whole FROM api_keys k WHERE id = $1`, [created.body.id]);
    assert.equal(row.key_hash, createHash('sha256').update(key).digest('hex'));
    assert.ok(!row.whole.includes(secret));
    const events = await env.db.query(
      `SELECT action, details::text AS details FROM audit_events WHERE organization_id = $1 AND action LIKE 'api_key.%'`,
      [org.id],
    );
    assert.deepEqual(
      events.map((e: { action: string }) => e.action),
      ['api_key.create'],
    );
    assert.ok(!events[0].details.includes(secret));
  });

  it('refuses grants its owner does not hold, NRNs of another organization, and expiries past the maximum', async () => {
    const viewer = await userWithRole(env, org, 'viewer');
    const refused = await createKey(viewer.token, [
      { nrn: `organization=${org.id}`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}`, role_slug: 'admin' },
      { nrn: 'organization=999999999', role_slug: 'viewer' },
    ]);
    assertAdminError(refused, 400, 'API_KEY.INVALID_GRANTS');
    assert.deepEqual(
      refused.body.causes.map((c: { code: string; index: number }) => [c.index, c.code]),
      [
        [1, 'API_KEY.GRANT_NOT_HELD'],
        [2, 'API_KEY.NRN_OUTSIDE_ORGANIZATION'],
      ],
    );
    const tooLate = new Date(Date.now() + 61 * 86_400_000).toISOString();
    assertAdminError(
      await createKey(org.admin, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }], { expires_at: tooLate }),
      400,
      'API_KEY.EXPIRY_OUT_OF_RANGE',
    );
    const count = await env.db.query(`SELECT count(*)::int AS n FROM api_keys WHERE organization_id = $1`, [org.id]);
    assert.equal(count[0].n, 0);
  });

  it('exchanges the key in both spellings for a token that acts with the key’s narrowed grants, not the owner’s', async () => {
    const created = await createKey(org.admin, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }]);
    for (const body of [{ api_key: created.body.api_key }, { apikey: created.body.api_key }]) {
      const answer = await exchange(body);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.deepEqual(Object.keys(answer.body).sort(), ['access_token', 'expires_in', 'organization_id', 'refresh_token', 'token_type']);
      assert.equal(answer.body.organization_id, Number(org.id));
      assert.equal(answer.body.expires_in, 300);
      assert.equal(answer.headers['cache-control'], 'no-store');
    }
    const token: string = (await exchange({ api_key: created.body.api_key })).body.access_token;
    // The owner (an administrator) may register users; the viewer key may read them, not register.
    assert.equal(
      (
        await http()
          .get(`/user/${org.adminId}`)
          .set(...bearer(token))
      ).status,
      200,
    );
    const write = await http()
      .post('/user')
      .set(...bearer(token))
      .send({ id: newUserId(), organization_id: Number(org.id) });
    assertAdminError(write, 403, 'forbidden');
    // Nor manage keys with it.
    assertAdminError(await createKey(token, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }]), 403, 'API_KEY.NOT_FROM_API_KEY');
    const used = await http()
      .get(`/api_key/${created.body.id}`)
      .set(...bearer(org.admin));
    assert.notEqual(used.body.last_used_at, null);
  });

  it('a write made with a key’s token names the key in its audit event', async () => {
    const created = await createKey(org.admin, [{ nrn: `organization=${org.id}`, role_slug: 'admin' }]);
    const token: string = (await exchange({ api_key: created.body.api_key })).body.access_token;
    const id = newUserId();
    const registered = await http()
      .post('/user')
      .set(...bearer(token))
      .send({ id, organization_id: Number(org.id) });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const [event] = await env.db.query(
      `SELECT actor_id, details FROM audit_events WHERE organization_id = $1 AND action = 'user.create' AND target_id = $2`,
      [org.id, String(id)],
    );
    assert.equal(event.actor_id, String(org.adminId));
    assert.equal(event.details.via_api_key, String(created.body.id));
  });

  it('a key narrowed to one account reaches nothing outside it', async () => {
    const created = await createKey(org.admin, [{ nrn: `organization=${org.id}:account=1`, role_slug: 'admin' }]);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token: string = (await exchange({ api_key: created.body.api_key })).body.access_token;
    // Listing users needs user:read on the organization: the key holds it on one account only.
    assertAdminError(
      await http()
        .get(`/user?organization_id=${org.id}`)
        .set(...bearer(token)),
      403,
      'forbidden',
    );
    assert.equal(
      (
        await http()
          .get(`/user?organization_id=${org.id}`)
          .set(...bearer(org.admin))
      ).status,
      200,
    );
  });

  it('revoking refuses the key and the tokens it was exchanged for at once; PATCH and DELETE are audited', async () => {
    const created = await createKey(org.admin, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }]);
    const token: string = (await exchange({ api_key: created.body.api_key })).body.access_token;
    const renamed = await http()
      .patch(`/api_key/${created.body.id}`)
      .set(...bearer(org.admin))
      .send({ name: 'deploy' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.name, 'deploy');
    assert.equal(
      (
        await http()
          .get(`/user/${org.adminId}`)
          .set(...bearer(token))
      ).status,
      200,
    );

    // Another user of the organization cannot see or revoke it.
    const other = await userWithRole(env, org, 'admin');
    assertAdminError(
      await http()
        .delete(`/api_key/${created.body.id}`)
        .set(...bearer(other.token)),
      404,
      'API_KEY.NOT_FOUND',
    );

    const revoked = await http()
      .delete(`/api_key/${created.body.id}`)
      .set(...bearer(org.admin));
    assert.equal(revoked.status, 204);
    assertAdminError(await exchange({ api_key: created.body.api_key }), 401, 'API_KEY.INVALID');
    const after = await http()
      .get(`/user/${org.adminId}`)
      .set(...bearer(token));
    assert.equal(after.status, 401);
    assert.match(after.body.message, /revoked/);
    const events = await env.db.query(
      `SELECT action FROM audit_events WHERE organization_id = $1 AND action LIKE 'api_key.%' ORDER BY id`,
      [org.id],
    );
    assert.deepEqual(
      events.map((e: { action: string }) => e.action),
      ['api_key.create', 'api_key.update', 'api_key.delete'],
    );
  });

  it('bounds guessing: unknown keys answer 401, then 429 for the same prefix', async () => {
    assertAdminError(await exchange({ api_key: 'not-a-key' }), 401, 'API_KEY.INVALID');
    assert.equal((await http().post('/token').send({ api_key: 'a', apikey: 'b' })).status, 400);
    const guess = () => `npk_AAAAAAAA_${randomBytes(32).toString('base64url')}`;
    const statuses: number[] = [];
    for (let i = 0; i < 14; i += 1) statuses.push((await exchange({ api_key: guess() })).status);
    assert.equal(statuses[0], 401);
    assert.ok(statuses.includes(429), statuses.join(','));
  });
});
