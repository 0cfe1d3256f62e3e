/**
 * A read of an execution takes the caller's grants from the statement that reads the row
 * (api/executions/live.ts): the same decisions as grants read on their own — the token's user
 * type, a caller recorded at first sight, a revoke taking effect on the next read, a grant
 * elsewhere in the organization answering 403 — whether the row exists or not.
 */
import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantAdmin, grantRole, newUserId } from '../support/grants';
import type { UserType } from '../../db/entities/user';
import { executionReadsApp } from './reads-app';

describe('executions API: a read decides on the grants read beside the row', function () {
  this.timeout(60_000);
  let db: DataSource;
  let t: TestApp;
  let org: string;
  const id = `exec_read_grants_${process.pid}`;

  before(async () => {
    db = await testDataSource();
    t = executionReadsApp(db);
    org = newOrganizationId();
    // An execution whose workflow is gone: the organization's NRN guards it.
    await db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace)
       VALUES ($1, $2, 'wf_gone', 1, 'completed', '{"source": "manual", "payload": {}}'::jsonb, 'default')`,
      [id, org],
    );
  });

  const read = async (executionId: string, userId: string, userType: UserType = 'person') =>
    t.request
      .get(`/workflows/executions/${executionId}`)
      .set('Authorization', `Bearer ${await t.token({ organizationId: org, userId, userType })}`);

  it('serves a caller holding the permission, and answers 404 for a missing execution', async () => {
    const admin = await grantAdmin(db, org);
    const found = await read(id, admin);
    assert.equal(found.status, 200);
    assert.equal(found.body.id, id);
    assertDialect('problem', await read('exec_missing', admin), 404);
  });

  it('refuses with 401 a token whose user_type is not the recorded user’s, whether the row exists or not', async () => {
    const admin = await grantAdmin(db, org);
    for (const target of [id, 'exec_missing']) {
      const refused = await read(target, admin, 'service_account');
      assertDialect('problem', refused, 401);
      assert.match(refused.body.detail, /"user_type" claim is service_account, but user [0-9]+ of organization [0-9]+ is a person/);
    }
  });

  it('records a caller seen for the first time, and answers 404 while it holds nothing', async () => {
    const newcomer = String(newUserId());
    assertDialect('problem', await read(id, newcomer, 'service_account'), 404);
    const [row] = await db.query<Array<{ type: string }>>(`SELECT type FROM users WHERE organization_id = $1 AND id = $2`, [org, newcomer]);
    assert.equal(row?.type, 'service_account');
    assertDialect('problem', await read(id, newcomer, 'person'), 401);
  });

  it('answers 403 to a grant elsewhere in the organization, and 404 on the next read after a revoke', async () => {
    const { userId: elsewhere } = await grantRole(db, org, 'viewer', `organization=${org}:account=1`);
    assertDialect('problem', await read(id, elsewhere), 403);

    const { userId: viewer, grantId } = await grantRole(db, org, 'viewer');
    assert.equal((await read(id, viewer)).status, 200);
    await db.query(`DELETE FROM grants WHERE id = $1`, [grantId]);
    assertDialect('problem', await read(id, viewer), 404);
  });
});
