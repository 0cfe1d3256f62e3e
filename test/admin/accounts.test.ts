import assert from 'node:assert/strict';
import { assertAdminError, bearer, newOrg, useAdminApp, userWithRole } from './support';

describe('admin: accounts', () => {
  const { env, org } = useAdminApp();

  const create = (body: object, token = org.admin) =>
    env.t.request
      .post('/account')
      .set(...bearer(token))
      .send({ organization_id: Number(org.id), ...body });
  const accountCount = async (): Promise<number> =>
    Number((await env.db.query(`SELECT count(*) AS n FROM accounts WHERE organization_id = $1`, [org.id]))[0].n);

  it('creates an account with a generated, unique slug and reads it back with metadata', async () => {
    const metadata = {
      key: 'cost-center',
      value: 'cc-1',
      additional_properties: { schemas: [{ type: 'object' }], tags: [{ key: 'team', value: 'core' }] },
    };
    const first = await create({ name: 'Main Account — Ñandú', metadata });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.body.slug, 'main-account-nandu');
    assert.equal(first.body.status, 'active');
    assert.equal(first.body.organization_id, Number(org.id));
    const second = await create({ name: 'Main account nandu' });
    assert.equal(second.body.slug, 'main-account-nandu-2');

    const plain = await env.t.request.get(`/account/${first.body.id}`).set(...bearer(org.admin));
    assert.deepEqual(plain.body.metadata, { key: 'cost-center', value: 'cc-1', additional_properties: {} });
    assert.equal('deleted_at' in plain.body, false);
    const full = await env.t.request.get(`/account/${first.body.id}?metadata_include=schemas,tags`).set(...bearer(org.admin));
    assert.deepEqual(full.body.metadata.additional_properties, metadata.additional_properties);
    const tagsOnly = await env.t.request.get(`/account/${first.body.id}?metadata_include=tags`).set(...bearer(org.admin));
    assert.deepEqual(tagsOnly.body.metadata.additional_properties, { tags: [{ key: 'team', value: 'core' }] });
    assertAdminError(
      await env.t.request.get(`/account/${first.body.id}?metadata_include=owners`).set(...bearer(org.admin)),
      400,
      'validation_failed',
    );
  });

  it('refuses bad input and writes nothing', async () => {
    const bad: object[] = [
      { name: '' },
      { name: 'x'.repeat(61) },
      { name: 'ok', slug: 'y'.repeat(71) },
      { name: 'ok', slug: 'Not A Slug' },
      { name: 'ok', status: 'deleted' },
      { name: 'ok', status: 'archived' },
      { name: 42 },
      { name: 'ok', color: 'blue' },
      { name: 'ok', metadata: { key: 'k' } },
      { name: 'ok', metadata: { key: 'k', value: 'v', additional_properties: { tags: [{ key: 'a', value: 'b', x: 1 }] } } },
      { name: 'ok', organization_id: 'seven' },
    ];
    for (const body of bad) assertAdminError(await create(body), 400, 'validation_failed');
    assert.equal(await accountCount(), 0);
  });

  it('keeps explicit slugs unique among live accounts', async () => {
    const a = await create({ name: 'A', slug: 'shared' });
    assert.equal(a.status, 201);
    assertAdminError(await create({ name: 'B', slug: 'shared' }), 409, 'ACCOUNT.SLUG_TAKEN');
    const b = await create({ name: 'B' });
    assertAdminError(
      await env.t.request
        .patch(`/account/${b.body.id}`)
        .set(...bearer(org.admin))
        .send({ slug: 'shared' }),
      409,
      'ACCOUNT.SLUG_TAKEN',
    );
    assert.equal((await env.t.request.delete(`/account/${a.body.id}`).set(...bearer(org.admin))).status, 204);
    assert.equal((await create({ name: 'C', slug: 'shared' })).status, 201);
  });

  it('lists live accounts with paging, 30 by default', async () => {
    for (let i = 0; i < 35; i += 1) assert.equal((await create({ name: `Account ${i}` })).status, 201);
    const gone = (await create({ name: 'Gone' })).body.id as number;
    await env.t.request.delete(`/account/${gone}`).set(...bearer(org.admin));
    const page = await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(org.admin));
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.paging, { total: 35, offset: 0, limit: 30 });
    assert.equal(page.body.results.length, 30);
    const last = await env.t.request.get(`/account?organization_id=${org.id}&offset=30`).set(...bearer(org.admin));
    assert.deepEqual(
      last.body.results.map((a: { name: string }) => a.name),
      ['Account 30', 'Account 31', 'Account 32', 'Account 33', 'Account 34'],
    );
    const small = await env.t.request.get(`/account?organization_id=${org.id}&offset=2&limit=3`).set(...bearer(org.admin));
    assert.deepEqual(small.body.paging, { total: 35, offset: 2, limit: 3 });
    assert.deepEqual(
      small.body.results.map((a: { name: string }) => a.name),
      ['Account 2', 'Account 3', 'Account 4'],
    );
    for (const q of [
      '',
      'organization_id=abc',
      `organization_id=${org.id}&offset=-1`,
      `organization_id=${org.id}&limit=0`,
      `organization_id=${org.id}&offset=x`,
    ]) {
      assertAdminError(await env.t.request.get(`/account?${q}`).set(...bearer(org.admin)), 400, 'validation_failed');
    }
  });

  it('pages correctly from both ends, around deleted accounts', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 13; i += 1) ids.push((await create({ name: `P${i}` })).body.id as number);
    for (const gone of [ids[0], ids[6], ids[12]]) await env.t.request.delete(`/account/${gone}`).set(...bearer(org.admin));
    const live = ids.filter((_, i) => ![0, 6, 12].includes(i));
    for (let offset = 0; offset <= live.length + 1; offset += 1) {
      for (const limit of [1, 3, 4, 30]) {
        const page = await env.t.request
          .get(`/account?organization_id=${org.id}&offset=${offset}&limit=${limit}`)
          .set(...bearer(org.admin));
        assert.deepEqual(
          page.body.results.map((a: { id: number }) => a.id),
          live.slice(offset, offset + limit),
          `offset ${offset} limit ${limit}`,
        );
        assert.equal(page.body.paging.total, live.length);
      }
    }
  });

  it('lists only the granted accounts to a caller granted on single accounts', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 4; i += 1) ids.push((await create({ name: `Acc ${i}` })).body.id as number);
    const scoped = await userWithRole(env, org, 'viewer', `organization=${org.id}:account=${ids[1]}`);
    await env.t.request
      .post(`/user/${scoped.id}/grant`)
      .set(...bearer(org.admin))
      .send([{ nrn: `organization=${org.id}:account=${ids[3]}`, role_slug: 'viewer' }]);
    const page = await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(scoped.token));
    assert.equal(page.status, 200);
    assert.deepEqual(
      page.body.results.map((a: { id: number }) => a.id),
      [ids[1], ids[3]],
    );
    assert.equal(page.body.paging.total, 2);
    const wildcard = await userWithRole(env, org, 'viewer', `organization=${org.id}:account=*`);
    assert.equal((await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(wildcard.token))).body.paging.total, 4);
    const none = await userWithRole(env, org, 'viewer', `organization=${org.id}:account=${ids[0]}:namespace=1`);
    assertAdminError(await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(none.token)), 403, 'forbidden');
  });

  it('soft-deletes: 404 by default, returned with deleted_at when show_deleted=true', async () => {
    const id = (await create({ name: 'Doomed' })).body.id as number;
    const live = await env.t.request.get(`/account/${id}?show_deleted=true`).set(...bearer(org.admin));
    assert.equal(live.body.deleted_at, null);
    assert.equal((await env.t.request.delete(`/account/${id}`).set(...bearer(org.admin))).status, 204);
    assertAdminError(await env.t.request.get(`/account/${id}`).set(...bearer(org.admin)), 404, 'ACCOUNT.NOT_FOUND');
    assertAdminError(await env.t.request.get(`/account/${id}?show_deleted=false`).set(...bearer(org.admin)), 404, 'ACCOUNT.NOT_FOUND');
    const shown = await env.t.request.get(`/account/${id}?show_deleted=true`).set(...bearer(org.admin));
    assert.equal(shown.status, 200);
    assert.equal(shown.body.status, 'deleted');
    assert.ok(!Number.isNaN(Date.parse(shown.body.deleted_at)));
    assertAdminError(
      await env.t.request
        .patch(`/account/${id}`)
        .set(...bearer(org.admin))
        .send({ name: 'Back' }),
      404,
      'ACCOUNT.NOT_FOUND',
    );
    assertAdminError(await env.t.request.delete(`/account/${id}`).set(...bearer(org.admin)), 404, 'ACCOUNT.NOT_FOUND');
    const [row] = await env.db.query(`SELECT name, status FROM accounts WHERE id = $1`, [id]);
    assert.deepEqual(row, { name: 'Doomed', status: 'deleted' });
  });

  it('updates name, status and metadata; refuses status deleted and unknown properties', async () => {
    const id = (await create({ name: 'Before' })).body.id as number;
    const res = await env.t.request
      .patch(`/account/${id}`)
      .set(...bearer(org.admin))
      .send({ name: 'After', status: 'inactive', metadata: { key: 'k', value: 'v' } });
    assert.equal(res.status, 200);
    assert.deepEqual([res.body.name, res.body.status, res.body.slug, res.body.metadata.key], ['After', 'inactive', 'before', 'k']);
    for (const body of [{ status: 'deleted' }, { owner: 'me' }, {}, { name: 'z'.repeat(61) }]) {
      assertAdminError(
        await env.t.request
          .patch(`/account/${id}`)
          .set(...bearer(org.admin))
          .send(body),
        400,
        'validation_failed',
      );
    }
    const [row] = await env.db.query(`SELECT name, status FROM accounts WHERE id = $1`, [id]);
    assert.deepEqual(row, { name: 'After', status: 'inactive' });
  });

  it('checks permissions: 403 inside the organization, 404 from another organization on every id route', async () => {
    const id = (await create({ name: 'Guarded' })).body.id as number;
    const viewer = await userWithRole(env, org, 'viewer');
    assert.equal((await env.t.request.get(`/account/${id}`).set(...bearer(viewer.token))).status, 200);
    assertAdminError(await create({ name: 'Nope' }, viewer.token), 403, 'forbidden');
    assertAdminError(
      await env.t.request
        .patch(`/account/${id}`)
        .set(...bearer(viewer.token))
        .send({ name: 'Nope' }),
      403,
      'forbidden',
    );
    assertAdminError(await env.t.request.delete(`/account/${id}`).set(...bearer(viewer.token)), 403, 'forbidden');

    const other = await newOrg(env);
    assertAdminError(await env.t.request.get(`/account/${id}`).set(...bearer(other.admin)), 404, 'ACCOUNT.NOT_FOUND');
    assertAdminError(await env.t.request.get(`/account/${id}?show_deleted=true`).set(...bearer(other.admin)), 404, 'ACCOUNT.NOT_FOUND');
    assertAdminError(
      await env.t.request
        .patch(`/account/${id}`)
        .set(...bearer(other.admin))
        .send({ name: 'Mine' }),
      404,
      'ACCOUNT.NOT_FOUND',
    );
    assertAdminError(await env.t.request.delete(`/account/${id}`).set(...bearer(other.admin)), 404, 'ACCOUNT.NOT_FOUND');
    assertAdminError(
      await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(other.admin)),
      404,
      'ORGANIZATION.NOT_FOUND',
    );
    assertAdminError(await create({ name: 'Intruder' }, other.admin), 404, 'ORGANIZATION.NOT_FOUND');
    assertAdminError(await env.t.request.get('/account/999999999999').set(...bearer(org.admin)), 404, 'ACCOUNT.NOT_FOUND');

    const scoped = await userWithRole(env, org, 'admin', `organization=${org.id}:account=${id}`);
    assert.equal(
      (
        await env.t.request
          .patch(`/account/${id}`)
          .set(...bearer(scoped.token))
          .send({ name: 'Scoped' })
      ).status,
      200,
    );
    assertAdminError(await create({ name: 'Org-level' }, scoped.token), 403, 'forbidden');
    const [row] = await env.db.query(`SELECT name FROM accounts WHERE id = $1`, [id]);
    assert.equal(row.name, 'Scoped');
    assert.equal(await accountCount(), 1);
  });
});
