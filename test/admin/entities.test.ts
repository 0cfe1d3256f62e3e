import assert from 'node:assert/strict';
import { AccountEntity } from '../../db/entities/account';
import { ProviderSpecificationEntity } from '../../db/entities/provider-specification';
import { RoleEntity } from '../../db/entities/role';
import { testDataSource } from '../support/database';
import { adminTestApp, bearer, newOrg } from './support';

describe('admin: entities match the migrated schema', () => {
  it('reads roles, global provider specifications and accounts through TypeORM repositories', async () => {
    const db = await testDataSource();
    const roles = await db.getRepository(RoleEntity).find({ order: { id: 'ASC' } });
    assert.deepEqual(
      roles.map((r) => r.slug),
      ['admin', 'developer', 'viewer', 'ops', 'ci', 'secops'],
    );
    assert.deepEqual(roles.find((r) => r.slug === 'ci')?.userTypes, ['service_account']);
    const oke = await db.getRepository(ProviderSpecificationEntity).findOneByOrFail({ slug: 'oracle-kubernetes-engine' });
    assert.equal(oke.organizationId, null);
    assert.equal(oke.categories.length, 1);

    const env = await adminTestApp();
    const org = await newOrg(env);
    const created = await env.t.request
      .post('/account')
      .set(...bearer(org.admin))
      .send({ name: 'Entity', organization_id: Number(org.id) });
    const account = await db.getRepository(AccountEntity).findOneByOrFail({ id: Number(created.body.id) });
    assert.deepEqual([account.slug, account.status, account.deletedAt], ['entity', 'active', null]);
  });
});
