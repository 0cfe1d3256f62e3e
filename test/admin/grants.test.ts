import assert from 'node:assert/strict';
import { bootstrapAdmins } from '../../api/admin/bootstrap';
import { captureLogger } from '../support/logger';
import { assertAdminError, bearer, newOrg, newUserId, useAdminApp, userWithRole } from './support';

describe('admin: bulk grants, users and roles', () => {
  const { env, org } = useAdminApp();

  const grantCount = async (userId: number): Promise<number> =>
    Number((await env.db.query(`SELECT count(*) AS n FROM grants WHERE user_id = $1`, [userId]))[0].n);
  const newUser = async (type: 'person' | 'service_account' = 'person') => (await userWithRole(env, org, 'none', undefined, type)).id;
  const post = (userId: number, body: unknown, token = org.admin) =>
    env.t.request
      .post(`/user/${userId}/grant`)
      .set(...bearer(token))
      .send(body as object);

  it('creates slug and id items mixed, in request order, pending for roles that need approval', async () => {
    const user = await newUser();
    const res = await post(user, [
      { nrn: `organization=${org.id}:account=2`, role_slug: 'developer' },
      { nrn: `organization=${org.id}`, role_id: 3 },
      { nrn: `organization=${org.id}:account=*`, role_slug: 'secops' },
    ]);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.map((g: Record<string, unknown>) => [g.nrn, g.user_id, g.role_id, g.role_slug, g.status]),
      [
        [`organization=${org.id}:account=2`, user, 2, 'developer', 'active'],
        [`organization=${org.id}`, user, 3, 'viewer', 'active'],
        [`organization=${org.id}:account=*`, user, 6, 'secops', 'pending'],
      ],
    );
    assert.ok(res.body.every((g: { id: unknown }) => Number.isInteger(g.id)));
    const list = await env.t.request.get(`/user/${user}/grant`).set(...bearer(org.admin));
    assert.equal(list.status, 200);
    assert.equal(list.body.results.length, 3);
  });

  it('is additive: existing grants stay untouched', async () => {
    const user = await newUser();
    assert.equal((await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }])).status, 201);
    assert.equal((await post(user, [{ nrn: `organization=${org.id}:account=1`, role_slug: 'developer' }])).status, 201);
    assert.equal(await grantCount(user), 2);
  });

  it('refuses 0 and 101 items and writes nothing', async () => {
    const user = await newUser();
    assertAdminError(await post(user, []), 400, 'validation_failed');
    const items = Array.from({ length: 101 }, (_, i) => ({ nrn: `organization=${org.id}:account=${i + 1}`, role_slug: 'viewer' }));
    assertAdminError(await post(user, items), 400, 'validation_failed');
    assertAdminError(await post(user, { nrn: `organization=${org.id}`, role_slug: 'viewer' }), 400, 'validation_failed');
    assert.equal(await grantCount(user), 0);
    assert.equal((await post(user, items.slice(0, 100))).status, 201);
    assert.equal(await grantCount(user), 100);
  });

  const badItems: Array<[string, (orgId: string) => unknown, string]> = [
    ['an unknown role slug', (o) => ({ nrn: `organization=${o}`, role_slug: 'emperor' }), 'RESOURCE_GRANTS.ROLE_NOT_FOUND'],
    ['an unknown role id', (o) => ({ nrn: `organization=${o}`, role_id: 9999 }), 'RESOURCE_GRANTS.ROLE_NOT_FOUND'],
    ['an invalid NRN', () => ({ nrn: 'organization=1:bogus=2', role_slug: 'viewer' }), 'RESOURCE_GRANTS.INVALID_GRANT'],
    ['an unknown property', (o) => ({ nrn: `organization=${o}`, role_slug: 'viewer', extra: 1 }), 'RESOURCE_GRANTS.INVALID_GRANT'],
    ['both slug and id', (o) => ({ nrn: `organization=${o}`, role_slug: 'viewer', role_id: 3 }), 'RESOURCE_GRANTS.INVALID_GRANT'],
    ['a string role id', (o) => ({ nrn: `organization=${o}`, role_id: '3' }), 'RESOURCE_GRANTS.INVALID_GRANT'],
    ['a non-object item', () => 'viewer', 'RESOURCE_GRANTS.INVALID_GRANT'],
    [
      'an oversized NRN',
      (o) => ({ nrn: `organization=${o}:account=${'1'.repeat(300)}`, role_slug: 'viewer' }),
      'RESOURCE_GRANTS.INVALID_GRANT',
    ],
    [
      'an NRN of another organization',
      () => ({ nrn: 'organization=424242', role_slug: 'viewer' }),
      'RESOURCE_GRANTS.NRN_OUTSIDE_ORGANIZATION',
    ],
    [
      'a role restricted to service accounts',
      (o) => ({ nrn: `organization=${o}`, role_slug: 'ci' }),
      'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED',
    ],
  ];
  for (const [what, item, code] of badItems) {
    it(`creates nothing and names the index of ${what} at a random position`, async () => {
      const user = await newUser();
      const index = Math.floor(Math.random() * 10);
      const items: unknown[] = Array.from({ length: 10 }, (_, i) => ({
        nrn: `organization=${org.id}:account=${i + 1}`,
        role_slug: 'viewer',
      }));
      items.splice(index, 0, item(org.id));
      const res = await post(user, items);
      assertAdminError(res, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
      assert.equal(res.body.cause.code, code);
      assert.equal(res.body.cause.index, index);
      assert.equal(typeof res.body.cause.detail, 'string');
      assert.equal(await grantCount(user), 0);
    });
  }

  it('refuses a grant that already exists, and one requested twice, naming the index', async () => {
    const user = await newUser();
    assert.equal((await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }])).status, 201);
    const again = await post(user, [
      { nrn: `organization=${org.id}:account=5`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}`, role_id: 3 },
    ]);
    assertAdminError(again, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
    assert.deepEqual([again.body.cause.code, again.body.cause.index], ['RESOURCE_GRANTS.DUPLICATE_GRANT', 1]);
    const twice = await post(user, [
      { nrn: `organization=${org.id}:account=7`, role_slug: 'developer' },
      { nrn: `organization=${org.id}:account=8`, role_slug: 'developer' },
      { nrn: `organization=${org.id}:account=07`, role_id: 2 },
    ]);
    assertAdminError(twice, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
    assert.deepEqual([twice.body.cause.code, twice.body.cause.index], ['RESOURCE_GRANTS.DUPLICATE_GRANT', 2]);
    assert.equal(await grantCount(user), 1);
  });

  it('lists every failing item in causes, by index, with the first one as cause', async () => {
    const user = await newUser();
    assert.equal((await post(user, [{ nrn: `organization=${org.id}:account=3`, role_slug: 'viewer' }])).status, 201);
    const res = await post(user, [
      { nrn: `organization=${org.id}:account=1`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}`, role_slug: 'ci' },
      { nrn: `organization=${org.id}:account=2`, role_slug: 'developer' },
      { nrn: `organization=${org.id}:account=3`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}`, role_slug: 'no-such-role' },
    ]);
    assertAdminError(res, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
    assert.deepEqual(
      res.body.causes.map((c: { code: string; index: number }) => [c.index, c.code]),
      [
        [1, 'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED'],
        [3, 'RESOURCE_GRANTS.DUPLICATE_GRANT'],
        [4, 'RESOURCE_GRANTS.ROLE_NOT_FOUND'],
      ],
    );
    assert.deepEqual(res.body.cause, res.body.causes[0]);
    assert.equal(await grantCount(user), 1);
    // Only an existing grant: the insert's check names it the same way.
    const dup = await post(user, [
      { nrn: `organization=${org.id}:account=4`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}:account=3`, role_slug: 'viewer' },
    ]);
    assert.deepEqual(
      dup.body.causes.map((c: { code: string; index: number }) => [c.index, c.code]),
      [[1, 'RESOURCE_GRANTS.DUPLICATE_GRANT']],
    );
  });

  it('grants service-account roles to service accounts only', async () => {
    const robot = await newUser('service_account');
    assert.equal((await post(robot, [{ nrn: `organization=${org.id}`, role_slug: 'ci' }])).status, 201);
    const person = await newUser();
    const res = await post(person, [{ nrn: `organization=${org.id}`, role_slug: 'ci' }]);
    assertAdminError(res, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
    assert.equal(res.body.cause.code, 'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED');
  });

  it('lets a requester assign only the roles it may assign, on NRNs it holds', async () => {
    const developer = await userWithRole(env, org, 'developer', `organization=${org.id}:account=3`);
    const user = await newUser();
    const ok = await post(user, [{ nrn: `organization=${org.id}:account=3:namespace=9`, role_slug: 'viewer' }], developer.token);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    for (const [item, index] of [
      [{ nrn: `organization=${org.id}:account=3`, role_slug: 'admin' }, 1],
      [{ nrn: `organization=${org.id}:account=4`, role_slug: 'viewer' }, 1],
    ] as const) {
      const res = await post(user, [{ nrn: `organization=${org.id}:account=3`, role_slug: 'viewer' }, item], developer.token);
      assertAdminError(res, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
      assert.deepEqual([res.body.cause.code, res.body.cause.index], ['RESOURCE_GRANTS.ROLE_NOT_ASSIGNABLE', index]);
    }
    assert.equal(await grantCount(user), 1);
  });

  it('answers 403 to a caller without grant permission in the organization, 404 to another organization', async () => {
    const viewer = await userWithRole(env, org, 'viewer');
    const user = await newUser();
    assertAdminError(await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }], viewer.token), 403, 'forbidden');
    const other = await newOrg(env);
    const grant = (await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }])).body[0];
    assertAdminError(await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'developer' }], other.admin), 404, 'USER.NOT_FOUND');
    assertAdminError(await env.t.request.get(`/user/${user}/grant`).set(...bearer(other.admin)), 404, 'USER.NOT_FOUND');
    assertAdminError(await env.t.request.get(`/user/${user}`).set(...bearer(other.admin)), 404, 'USER.NOT_FOUND');
    assertAdminError(await env.t.request.delete(`/user/${user}/grant/${grant.id}`).set(...bearer(other.admin)), 404, 'USER.NOT_FOUND');
    assertAdminError(
      await env.t.request.post(`/user/${user}/grant/${grant.id}/approve`).set(...bearer(other.admin)),
      404,
      'USER.NOT_FOUND',
    );
    assert.equal(await grantCount(user), 1);
  });

  it('leaves exactly the union of the successful requests after 20 concurrent overlapping bulk grants', async () => {
    const user = await newUser();
    const requests = Array.from({ length: 20 }, (_, r) =>
      Array.from({ length: 10 }, (_, i) => ({
        nrn: `organization=${org.id}:account=${(r * 3 + i) % 40}`,
        role_slug: i % 2 === 0 ? 'viewer' : 'developer',
      })),
    );
    const responses = await Promise.all(requests.map((items) => post(user, items)));
    const union = new Set<string>();
    responses.forEach((res, r) => {
      if (res.status === 201) for (const item of requests[r]) union.add(`${item.nrn}|${item.role_slug}`);
      else {
        assertAdminError(res, 400, 'RESOURCE_GRANTS.BULK_CREATE_FAILED');
        assert.equal(res.body.cause.code, 'RESOURCE_GRANTS.DUPLICATE_GRANT');
      }
    });
    assert.ok(responses.some((res) => res.status === 201));
    const rows: Array<{ nrn: string; slug: string }> = await env.db.query(
      `SELECT g.nrn, r.slug FROM grants g JOIN roles r ON r.id = g.role_id WHERE g.user_id = $1`,
      [user],
    );
    const stored = rows.map((row) => `${row.nrn}|${row.slug}`);
    assert.equal(new Set(stored).size, stored.length, 'no duplicates');
    assert.deepEqual(new Set(stored), union);
  });

  it('gives a pending grant no power until it is approved', async () => {
    const user = await newUser();
    const [pending] = (await post(user, [{ nrn: `organization=${org.id}`, role_slug: 'secops' }])).body as Array<{ id: number }>;
    const token = await org.token(user);
    assertAdminError(await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(token)), 404, 'ORGANIZATION.NOT_FOUND');
    assert.equal((await env.t.request.post(`/user/${user}/grant/${pending.id}/approve`).set(...bearer(org.admin))).status, 200);
    assert.equal((await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(token))).status, 200);
  });

  it('revokes a grant and approves a pending one', async () => {
    const user = await newUser();
    const created = await post(user, [
      { nrn: `organization=${org.id}`, role_slug: 'viewer' },
      { nrn: `organization=${org.id}:account=1`, role_slug: 'secops' },
    ]);
    const [viewer, secops] = created.body as Array<{ id: number; status: string }>;
    assert.equal(secops.status, 'pending');
    const self = await org.token(user);
    assertAdminError(await env.t.request.post(`/user/${user}/grant/${secops.id}/approve`).set(...bearer(self)), 403, 'forbidden');
    const approved = await env.t.request.post(`/user/${user}/grant/${secops.id}/approve`).set(...bearer(org.admin));
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.status, 'active');
    assertAdminError(
      await env.t.request.post(`/user/${user}/grant/${secops.id}/approve`).set(...bearer(org.admin)),
      409,
      'RESOURCE_GRANTS.NOT_PENDING',
    );
    assert.equal((await env.t.request.delete(`/user/${user}/grant/${viewer.id}`).set(...bearer(org.admin))).status, 204);
    assertAdminError(
      await env.t.request.delete(`/user/${user}/grant/${viewer.id}`).set(...bearer(org.admin)),
      404,
      'RESOURCE_GRANTS.NOT_FOUND',
    );
    assert.equal(await grantCount(user), 1);
  });

  it('lists roles with their restrictions', async () => {
    const res = await env.t.request.get('/role').set(...bearer(org.admin));
    assert.equal(res.status, 200);
    const ci = res.body.results.find((r: { slug: string }) => r.slug === 'ci');
    assert.deepEqual(ci.assignable_to_user_types, ['service_account']);
    assert.ok(res.body.results.some((r: { slug: string; requires_approval: boolean }) => r.slug === 'secops' && r.requires_approval));
    const stranger = await env.t.token({ userId: String(newUserId()), organizationId: org.id });
    assertAdminError(await env.t.request.get('/role').set(...bearer(stranger)), 404, 'ORGANIZATION.NOT_FOUND');
  });

  it('registers users, refuses a taken id, bad input and non-numeric subjects', async () => {
    const id = newUserId();
    const body = { id, organization_id: Number(org.id), type: 'service_account', email: 'ci@example.com' };
    const res = await env.t.request
      .post('/user')
      .set(...bearer(org.admin))
      .send(body);
    assert.equal(res.status, 201);
    assert.equal(res.body.type, 'service_account');
    assertAdminError(
      await env.t.request
        .post('/user')
        .set(...bearer(org.admin))
        .send(body),
      409,
      'USER.ALREADY_EXISTS',
    );
    for (const bad of [
      { organization_id: 'x' },
      { organization_id: Number(org.id), type: 'robot' },
      { organization_id: Number(org.id), name: 'n'.repeat(121) },
      { organization_id: Number(org.id), extra: 1 },
    ]) {
      assertAdminError(
        await env.t.request
          .post('/user')
          .set(...bearer(org.admin))
          .send(bad),
        400,
        'validation_failed',
      );
    }
    const listed = await env.t.request.get(`/user?organization_id=${org.id}`).set(...bearer(org.admin));
    assert.equal(listed.status, 200);
    assert.ok(listed.body.results.some((u: { id: number }) => u.id === id));
    const named = await env.t.token({ userId: 'alice', organizationId: org.id });
    // A subject that is not a user id is refused at authentication (api/http/auth.ts).
    assertAdminError(await env.t.request.get('/role').set(...bearer(named)), 401, 'unauthorized');
  });

  it('bootstraps admins idempotently, and user 1 of organization 1 by default', async () => {
    const userId = newUserId();
    const log = captureLogger();
    for (let i = 0; i < 2; i += 1)
      await bootstrapAdmins(env.db, [{ userId, organizationId: Number(org.id) }], log.logger, { defaultFirstAdmin: true });
    assert.equal(await grantCount(userId), 1);
    await bootstrapAdmins(env.db, [], log.logger, { defaultFirstAdmin: true });
    assert.ok(log.lines.some((line) => line.includes('user 1 holds the admin role on organization=1')));
    const token = await env.t.token({ userId: '1', organizationId: '1' });
    assert.equal((await env.t.request.get('/user?organization_id=1').set(...bearer(token))).status, 200);
  });
});
