import assert from 'node:assert/strict';
import { AccountCountRepository } from '../../db/repositories/account-count-repository';
import { testDataSource } from '../support/database';
import { adminTestApp, bearer, newOrg } from './support';

describe('admin: account counts (the trigger-kept count, read through its repository)', () => {
  it('counts an organization’s live accounts: 0 before the first, one more per create, one fewer per delete', async () => {
    const db = await testDataSource();
    const counts = AccountCountRepository.of(db.manager);
    const ctx = await adminTestApp();
    const org = await newOrg(ctx);
    assert.equal(await counts.liveOf(Number(org.id)), 0);
    const ids: string[] = [];
    for (const name of ['One', 'Two']) {
      const created = await ctx.t.request
        .post('/account')
        .set(...bearer(org.admin))
        .send({ name, organization_id: Number(org.id) });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids.push(String(created.body.id));
    }
    assert.equal(await counts.liveOf(Number(org.id)), 2);
    const deleted = await ctx.t.request.delete(`/account/${ids[0]}`).set(...bearer(org.admin));
    assert.ok(deleted.status < 300, JSON.stringify(deleted.body));
    assert.equal(await counts.liveOf(Number(org.id)), 1);
    const listed = await ctx.t.request.get(`/account?organization_id=${org.id}`).set(...bearer(org.admin));
    assert.equal(listed.body.paging.total, 1, 'the list reads the same count');
  });
});
