/** Users belong to organizations: the same user id in two organizations names two users. */
import assert from 'node:assert/strict';
import { bearer, newOrg, newUserId, useAdminApp } from './support';
import { assertDialect } from '../support/dialects';

describe('admin: users per organization', () => {
  const { env, org } = useAdminApp();

  it('registers user N in two organizations, and neither admin sees the other organization’s user', async () => {
    const other = await newOrg(env);
    const id = newUserId();
    const inA = await env.t.request
      .post('/user')
      .set(...bearer(org.admin))
      .send({ id, organization_id: Number(org.id), name: 'Ada (A)' });
    assert.equal(inA.status, 201, inA.text);
    const inB = await env.t.request
      .post('/user')
      .set(...bearer(other.admin))
      .send({ id, organization_id: Number(other.id), name: 'Bob (B)' });
    assert.equal(inB.status, 201, inB.text);
    assert.deepEqual([inA.body.organization_id, inB.body.organization_id], [Number(org.id), Number(other.id)]);

    // Each admin reads its own user N.
    const readB = await env.t.request.get(`/user/${id}`).set(...bearer(other.admin));
    assert.deepEqual([readB.status, readB.body.name], [200, 'Bob (B)']);
    const readA = await env.t.request.get(`/user/${id}`).set(...bearer(org.admin));
    assert.deepEqual([readA.status, readA.body.name], [200, 'Ada (A)']);
    // B's admin cannot list A's users, and its own list has only its own user N.
    assertDialect('admin', await env.t.request.get(`/user?organization_id=${org.id}`).set(...bearer(other.admin)), 404);
    const listB = await env.t.request.get(`/user?organization_id=${other.id}&limit=100`).set(...bearer(other.admin));
    assert.equal(listB.status, 200);
    assert.deepEqual(
      listB.body.results.filter((u: { id: number }) => u.id === id).map((u: { name: string }) => u.name),
      ['Bob (B)'],
    );

    // A grant to A's user N is A's alone: B's user N holds nothing in A or B.
    const granted = await env.t.request
      .post(`/user/${id}/grant`)
      .set(...bearer(org.admin))
      .send([{ nrn: `organization=${org.id}`, role_slug: 'viewer' }]);
    assert.equal(granted.status, 201, granted.text);
    const grantsOfB = await env.t.request.get(`/user/${id}/grant`).set(...bearer(other.admin));
    assert.deepEqual([grantsOfB.status, grantsOfB.body.results], [200, []]);
    const userBToken = await other.token(id);
    assertDialect('admin', await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(userBToken)), 404);
    const userAToken = await org.token(id);
    assert.equal((await env.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(userAToken))).status, 200);

    // A second registration of N in the same organization is still a conflict.
    const again = await env.t.request
      .post('/user')
      .set(...bearer(other.admin))
      .send({ id, organization_id: Number(other.id) });
    assertDialect('admin', again, 409);
  });
});
