/** Grants as the engine sees them: revocation (publishing too), narrower NRNs, the config dialect's 403, and where a definition may live. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { adminRoutes } from '../../api/admin';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantAdmin, grantRole } from '../support/grants';
import { definition, engineDeps } from './support';

describe('engine authorization: grants', () => {
  let t: TestApp;
  let org: string;
  let admin: string;
  const bearer = (token: string) => ['Authorization', `Bearer ${token}`] as const;

  before(async () => {
    const db = await testDataSource();
    const deps = engineDeps(db);
    t = createTestApp({ routes: [...adminRoutes({ dataSource: db }), ...workflowRoutes(deps), ...executionRoutes(deps)] });
    org = newOrganizationId();
    admin = await t.token({ organizationId: org, userId: await grantAdmin(db, org) });
  });

  const publish = async (key: string, extra: Record<string, unknown> = {}) => {
    const res = await t.request
      .post('/workflows/definitions')
      .set(...bearer(admin))
      .send(definition(key, extra));
    assert.equal(res.status, 201, res.text);
    return res.body.workflow as { id: string; nrn: string };
  };

  it('a revoked grant is refused on the very next request', async () => {
    await publish('revoke-me');
    const db = await testDataSource();
    const { userId, grantId } = await grantRole(db, org, 'developer');
    const token = await t.token({ organizationId: org, userId });
    await t.request
      .get('/workflows/definitions/revoke-me')
      .set(...bearer(token))
      .expect(200);
    await t.request
      .delete(`/user/${userId}/grant/${grantId}`)
      .set(...bearer(admin))
      .expect(204);
    // No grant left in the organization: not even its existence is acknowledged.
    assertDialect('problem', await t.request.get('/workflows/definitions/revoke-me').set(...bearer(token)), 404);
    assertDialect(
      'problem',
      await t.request
        .post('/workflows/definitions/revoke-me/execute')
        .set(...bearer(token))
        .send({}),
      404,
    );
  });

  it('a grant on a narrower NRN than the workflow does not reach it; one on the workflow NRN does', async () => {
    const wide = await publish('org-wide');
    assert.equal(wide.nrn, `organization=${org}`);
    const narrow = await publish('in-account', { nrn: `organization=${org}:account=7` });
    assert.equal(narrow.nrn, `organization=${org}:account=7`);
    const { userId } = await grantRole(await testDataSource(), org, 'developer', `organization=${org}:account=7`);
    const token = await t.token({ organizationId: org, userId });
    const denied = await t.request.get('/workflows/definitions/org-wide').set(...bearer(token));
    assertDialect('problem', denied, 403);
    assert.match(denied.body.detail, new RegExp(`workflow:read permission on organization=${org}\\.$`));
    await t.request
      .get('/workflows/definitions/in-account')
      .set(...bearer(token))
      .expect(200);
    // Listing needs the permission on the organization as a whole.
    assertDialect('problem', await t.request.get('/workflows/definitions').set(...bearer(token)), 403);
  });

  it('config routes answer 403 as {error: "forbidden", message}', async () => {
    await publish('configured');
    const { userId } = await grantRole(await testDataSource(), org, 'viewer');
    const token = await t.token({ organizationId: org, userId });
    const res = await t.request
      .post('/workflows/config')
      .set(...bearer(token))
      .send({ name: 'TOKEN', value: 's3cret', secret: true, workflow: 'configured' });
    assert.equal(res.status, 403);
    assert.match(res.headers['content-type'], /^application\/json/);
    assert.deepEqual(Object.keys(res.body).sort(), ['error', 'message']);
    assert.equal(res.body.error, 'forbidden');
    assert.match(res.body.message, /config:write/);
  });

  it("a definition's nrn must lie inside the caller's organization (400 with the reason)", async () => {
    const post = (nrn: string) =>
      t.request
        .post('/workflows/definitions')
        .set(...bearer(admin))
        .send(definition(`nrn-${Math.random().toString(36).slice(2, 8)}`, { nrn }));
    for (const [nrn, reason] of [
      [`organization=${Number(org) + 1}`, `must lie inside your organization (start with organization=${org})`],
      [`organization=*`, `must lie inside your organization`],
      [`organization=${org}:account=*`, 'must name one resource (no * wildcards)'],
    ]) {
      const res = await post(nrn);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/nrn-outside-organization$/);
      assert.equal(res.body.errors[0].path, '/nrn');
      assert.ok(res.body.errors[0].message.includes(reason), res.body.errors[0].message);
    }
    // Leading zeros are one spelling of the same NRN.
    const ok = await post(`organization=${org}:account=007`);
    assert.equal(ok.status, 201, ok.text);
    assert.equal(ok.body.workflow.nrn, `organization=${org}:account=7`);
  });

  /**
   * Publishing decides on the caller's access at its previous publish and checks,
   * in the write's own statement, that the grants are still the ones decided on
   * (api/access/recent-access.ts): grants change between publishes and under a
   * write, and nothing is ever written on grants that are gone.
   */
  describe('publishing under the grants of the instant', () => {
    const post = (token: string, key: string, extra: Record<string, unknown> = {}) =>
      t.request
        .post('/workflows/definitions')
        .set(...bearer(token))
        .send(definition(key, extra));
    const put = (token: string, key: string) =>
      t.request
        .put(`/workflows/definitions/${key}`)
        .set(...bearer(token))
        .send(definition(key));
    const exists = async (key: string) =>
      (await new WorkflowRepository((await testDataSource()).manager).findByRef(org, key)) !== undefined;
    const revoke = (userId: string, grantId: number | undefined) =>
      t.request
        .delete(`/user/${userId}/grant/${grantId}`)
        .set(...bearer(admin))
        .expect(204);

    it('a grant revoked after a publish refuses the next one, by POST and by PUT, and writes nothing', async () => {
      const db = await testDataSource();
      const { userId, grantId } = await grantRole(db, org, 'developer');
      const token = await t.token({ organizationId: org, userId });
      assert.equal((await post(token, 'before-revoke')).status, 201);
      assert.equal((await put(token, 'before-revoke-put')).status, 201);
      await revoke(userId, grantId);
      assertDialect('problem', await post(token, 'after-revoke'), 404);
      assertDialect('problem', await put(token, 'after-revoke-put'), 404);
      assert.equal(await exists('after-revoke'), false);
      assert.equal(await exists('after-revoke-put'), false);
    });

    it('a grant narrowed after a publish is decided again: 403 where it no longer reaches, 201 where it does', async () => {
      const db = await testDataSource();
      const { userId, grantId } = await grantRole(db, org, 'developer');
      const token = await t.token({ organizationId: org, userId });
      assert.equal((await post(token, 'wide-first')).status, 201);
      await grantRole(db, org, 'developer', `organization=${org}:account=7`, userId);
      await revoke(userId, grantId);
      const denied = await post(token, 'wide-again');
      assertDialect('problem', denied, 403);
      assert.match(denied.body.detail, /workflow:write permission on organization=/);
      assert.equal(await exists('wide-again'), false);
      assert.equal((await post(token, 'narrow', { nrn: `organization=${org}:account=7` })).status, 201);
    });

    it('a POST onto a key held by a workflow the caller cannot read answers 403 without its details; one who can read it gets 409', async () => {
      const db = await testDataSource();
      await publish('hidden-key', { nrn: `organization=${org}:account=8` });
      const { userId } = await grantRole(db, org, 'developer', `organization=${org}:account=7`);
      const outsider = await t.token({ organizationId: org, userId });
      const refused = await post(outsider, 'hidden-key', { nrn: `organization=${org}:account=7` });
      assertDialect('problem', refused, 403);
      assert.doesNotMatch(refused.text, /account=8|already exists/, 'nothing about the workflow that holds the key');
      // PUT of the same key refuses this caller too (it needs workflow:write on the NRN the workflow had).
      assertDialect('problem', await put(outsider, 'hidden-key'), 403);

      await grantRole(db, org, 'viewer', `organization=${org}:account=8`, userId);
      const conflicted = await post(outsider, 'hidden-key', { nrn: `organization=${org}:account=7` });
      assertDialect('problem', conflicted, 409);
      assert.match(conflicted.body.type, /\/workflow-key-conflict$/);
      assert.match(conflicted.body.detail, /A workflow with key "hidden-key" already exists\./);
    });

    it('a refusal is decided on grants read afresh: a grant given after a 403 lets the next publish through', async () => {
      const db = await testDataSource();
      const { userId } = await grantRole(db, org, 'viewer');
      const token = await t.token({ organizationId: org, userId });
      assertDialect('problem', await post(token, 'viewer-tries'), 403);
      await grantRole(db, org, 'developer', `organization=${org}`, userId);
      assert.equal((await post(token, 'viewer-tries')).status, 201);
    });

    it('the write refuses grants that changed since they were read, and answers the grants of the instant', async () => {
      const db = await testDataSource();
      const { userId, grantId } = await grantRole(db, org, 'developer');
      const grants = GrantRepository.of(db.manager);
      const before = await grants.activeOfCaller({ id: userId, organizationId: org, type: 'person' });
      assert.deepEqual(
        before.rows.map((g) => [g.nrn, g.roleSlug]),
        [[`organization=${org}`, 'developer']],
      );
      await revoke(userId, grantId);
      await grantRole(db, org, 'viewer', `organization=${org}`, userId);
      const workflows = new WorkflowRepository(db.manager);
      const fields = { name: 'Stale', description: null, path: '/', nrn: `organization=${org}`, metadata: null };
      const revision = {
        definition: {} as never,
        definitionJson: '{}',
        contentHash: randomBytes(8).toString('hex'),
        createdBy: userId,
        releaseNotes: null,
        semanticVersion: null,
        engineVersion: '1',
      };
      const stale = await workflows.publishNew({ id: 'wf_stale_grants', organizationId: org, key: 'stale-grants' }, fields, revision, {
        userId,
        userType: 'person',
        grantsAsOf: before.asOf,
      });
      assert.equal(stale.outcome, 'grants-changed');
      assert.deepEqual(stale.outcome === 'grants-changed' && stale.grantsNow.rows.map((g) => [g.nrn, g.roleSlug]), [
        [`organization=${org}`, 'viewer'],
      ]);
      assert.equal(await exists('stale-grants'), false);
      // Under the grants of the instant the same write goes through.
      const now = await grants.activeOfCaller({ id: userId, organizationId: org, type: 'person' });
      const written = await workflows.publishNew({ id: 'wf_fresh_grants', organizationId: org, key: 'fresh-grants' }, fields, revision, {
        userId,
        userType: 'person',
        grantsAsOf: now.asOf,
      });
      assert.equal(written.outcome, 'published');
    });
  });
});
