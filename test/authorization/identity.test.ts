/**
 * Token claims: exp required, audience and issuer when configured, ids as canonical
 * digit strings, and a user type that must be the recorded user's; roles are honoured
 * only for the user types they are meant for.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import type { DataSource } from 'typeorm';
import { adminRoutes } from '../../api/admin';
import { createApp } from '../../api/app';
import { createTokenVerifier, type ExpectedClaims, type UserType } from '../../api/http/auth';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import supertest from 'supertest';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { UserRepository } from '../../db/repositories/user-repository';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantAdmin, grantRole, newUserId } from '../support/grants';
import { captureLogger } from '../support/logger';
import { definition, engineDeps } from './support';

const secret = randomBytes(32);

async function app(expected: ExpectedClaims = {}) {
  const deps = engineDeps(await testDataSource());
  const koa = createApp({
    config: { bodyLimitBytes: 1024 * 1024, publicBaseUrl: 'http://api.test' },
    logger: captureLogger().logger,
    verifier: createTokenVerifier({ kind: 'hs256', secret }, expected),
    readiness: {},
    routes: [...workflowRoutes(deps), ...executionRoutes(deps)],
  });
  return supertest(koa.koa.callback());
}

/** A token with exactly these claims (exp one hour ahead unless `exp: null`). */
function sign(claims: Record<string, unknown> & { exp?: number | null }): Promise<string> {
  const { exp, ...rest } = claims;
  const jwt = new SignJWT({ user_type: 'person', ...rest }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt();
  if (exp !== null) jwt.setExpirationTime(exp ?? '1h');
  return jwt.sign(secret);
}

describe('identity: token claims', () => {
  it('refuses a token without exp', async () => {
    const request = await app();
    const res = await request
      .get('/workflows/definitions')
      .set('Authorization', `Bearer ${await sign({ sub: '1', organization_id: 1, exp: null })}`);
    assertDialect('problem', res, 401);
    assert.match(res.body.detail, /no "exp" claim/);
  });

  it('checks AUTH_JWT_AUDIENCE and AUTH_JWT_ISSUER when configured', async () => {
    const org = String(9_000_000 + Math.floor(Math.random() * 1_000_000));
    const userId = await grantAdmin(await testDataSource(), org);
    const request = await app({ audience: 'platform-api', issuer: 'https://idp.test' });
    const call = async (claims: Record<string, unknown>) =>
      request.get('/workflows/definitions').set('Authorization', `Bearer ${await sign({ sub: userId, organization_id: org, ...claims })}`);
    for (const claims of [{ aud: 'another-api', iss: 'https://idp.test' }, { iss: 'https://idp.test' }]) {
      const res = await call(claims);
      assertDialect('problem', res, 401);
      assert.match(res.body.detail, /"aud" claim/);
    }
    for (const claims of [{ aud: 'platform-api', iss: 'https://evil.test' }, { aud: 'platform-api' }]) {
      const res = await call(claims);
      assertDialect('problem', res, 401);
      assert.match(res.body.detail, /"iss" claim/);
    }
    assert.equal((await call({ aud: 'platform-api', iss: 'https://idp.test' })).status, 200);
  });

  it('refuses ids that are not canonical positive integers', async () => {
    const request = await app();
    for (const claims of [
      { sub: 'alice', organization_id: 1 },
      { sub: '', organization_id: 1 },
      { sub: '01', organization_id: 1 },
      { sub: '0', organization_id: 1 },
      { sub: '1', organization_id: '01' },
      { sub: '1', organization_id: 2 ** 53 + 1 }, // JSON number beyond 2^53: already rounded, refused
      { sub: '1', organization_id: 1.5 },
      { sub: '1', organization_id: -3 },
      { sub: '1', organization_id: '1e3' },
      { sub: '1', organization_id: '99999999999999999999' }, // beyond a bigint
      { sub: '1' },
    ]) {
      const res = await request.get('/workflows/definitions').set('Authorization', `Bearer ${await sign(claims)}`);
      assertDialect('problem', res, 401);
    }
  });

  it('2^53 and 2^53 + 1 are two organizations, never one', async () => {
    const request = await app();
    const db = await testDataSource();
    const a = '9007199254740992';
    const b = '9007199254740993';
    await db.query(`DELETE FROM workflows WHERE organization_id = ANY($1::text[])`, [[a, b]]);
    const adminA = await grantAdmin(db, a);
    const tokenA = `Bearer ${await sign({ sub: adminA, organization_id: a })}`;
    const created = await request.post('/workflows/definitions').set('Authorization', tokenA).send(definition('big-tenant'));
    assert.equal(created.status, 201, created.text);
    assert.equal(created.body.workflow.organizationId, a);
    // The same user id in the neighbouring organization holds nothing there.
    const sameUserInB = `Bearer ${await sign({ sub: adminA, organization_id: b })}`;
    assertDialect('problem', await request.get('/workflows/definitions/big-tenant').set('Authorization', sameUserInB), 404);
    // An admin of B sees B only.
    const tokenB = `Bearer ${await sign({ sub: await grantAdmin(db, b), organization_id: b })}`;
    assertDialect('problem', await request.get('/workflows/definitions/big-tenant').set('Authorization', tokenB), 404);
    const listB = await request.get('/workflows/definitions').set('Authorization', tokenB);
    assert.equal(listB.status, 200);
    assert.deepEqual(listB.body.data, []);
    const listA = await request.get('/workflows/definitions').set('Authorization', tokenA);
    assert.deepEqual(
      listA.body.data.map((w: { key: string }) => w.key),
      ['big-tenant'],
    );
  });
});

describe('identity: the token’s user type and the roles’ user types', () => {
  let t: TestApp;
  let db: DataSource;
  let org: string;
  before(async () => {
    db = await testDataSource();
    t = createTestApp({
      routes: [...workflowRoutes(engineDeps(db)), ...executionRoutes(engineDeps(db)), ...adminRoutes({ dataSource: db })],
    });
    org = newOrganizationId();
  });

  const as = async (userId: string, userType: UserType) => `Bearer ${await t.token({ organizationId: org, userId, userType })}`;
  /** A service account of the organization (registered as the admin API does), holding `roles` on the organization. */
  async function serviceAccount(roles: string[]): Promise<string> {
    const id = newUserId();
    await UserRepository.of(db.manager).register({ id, organizationId: Number(org), type: 'service_account' });
    for (const role of roles)
      await GrantRepository.of(db.manager).grantRoleOnce(role, [{ organizationId: org, userId: String(id), nrn: `organization=${org}` }]);
    return String(id);
  }

  it('refuses with 401 a token whose user_type is not the recorded user’s, on engine and admin routes', async () => {
    const person = await grantAdmin(db, org);
    const robot = await serviceAccount(['admin']);
    const engine = (auth: string) => t.request.get('/workflows/definitions').set('Authorization', auth);
    const admin = (id: string, auth: string) => t.request.get(`/user/${id}`).set('Authorization', auth);

    // A service-account token for person `person` does not act with the person's grants, nor the reverse.
    const asRobot = await engine(await as(person, 'service_account'));
    assertDialect('problem', asRobot, 401);
    assert.equal(
      asRobot.body.detail,
      `The bearer token's "user_type" claim is service_account, but user ${person} of organization ${org} is a person.`,
    );
    assertDialect('admin', await admin(person, await as(person, 'service_account')), 401);
    const asPerson = await admin(robot, await as(robot, 'person'));
    assertDialect('admin', asPerson, 401);
    assert.match(asPerson.body.message, /"user_type" claim is person, but user [0-9]+ of organization [0-9]+ is a service_account/);
    assertDialect('problem', await engine(await as(robot, 'person')), 401);

    // The tokens of the right type are served.
    assert.equal((await engine(await as(person, 'person'))).status, 200);
    assert.equal((await admin(person, await as(person, 'person'))).status, 200);
    assert.equal((await engine(await as(robot, 'service_account'))).status, 200);
    assert.equal((await admin(robot, await as(robot, 'service_account'))).status, 200);
  });

  it('records a user with the type it is first seen with', async () => {
    const newcomer = String(newUserId());
    // Holds nothing yet: the organization-wide list answers 404, and the user is recorded.
    assertDialect(
      'problem',
      await t.request.get('/workflows/definitions').set('Authorization', await as(newcomer, 'service_account')),
      404,
    );
    const [row] = await db.query<Array<{ type: string }>>(`SELECT type FROM users WHERE organization_id = $1 AND id = $2`, [org, newcomer]);
    assert.equal(row.type, 'service_account');
    assertDialect('problem', await t.request.get('/workflows/definitions').set('Authorization', await as(newcomer, 'person')), 401);
  });

  it('checks the caller on execute as on every route (its grants are read with the workflow): 401, first sight, 404 then 403', async () => {
    const admin = await grantAdmin(db, org);
    const published = await t.request
      .post('/workflows/definitions')
      .set('Authorization', await as(admin, 'person'))
      .send(definition('identity-execute'));
    assert.equal(published.status, 201, published.text);
    const execute = async (auth: string, ref = 'identity-execute') =>
      t.request.post(`/workflows/definitions/${ref}/execute`).set('Authorization', auth).send({});
    const typeOf = async (id: string) =>
      (await db.query<Array<{ type: string }>>(`SELECT type FROM users WHERE organization_id = $1 AND id = $2`, [org, id]))[0]?.type;

    // A token of another type than the recorded user's: 401, however many grants the user holds.
    const asRobot = await execute(await as(admin, 'service_account'));
    assertDialect('problem', asRobot, 401);
    assert.equal(
      asRobot.body.detail,
      `The bearer token's "user_type" claim is service_account, but user ${admin} of organization ${org} is a person.`,
    );
    // A missing workflow answers 404 before the caller is looked at (nor recorded).
    const stranger = String(newUserId());
    assertDialect('problem', await execute(await as(stranger, 'service_account'), 'no-such-workflow'), 404);
    assert.equal(await typeOf(stranger), undefined);
    // A caller seen for the first time holds nothing (404) and is recorded with its token's type, which binds it.
    assertDialect('problem', await execute(await as(stranger, 'service_account')), 404);
    assert.equal(await typeOf(stranger), 'service_account');
    assertDialect('problem', await execute(await as(stranger, 'person')), 401);
    // A viewer is refused the permission (403); the admin gets past authorization (Temporal refuses starts here: 503).
    const { userId: viewer } = await grantRole(db, org, 'viewer');
    const refused = await execute(await as(viewer, 'person'));
    assertDialect('problem', refused, 403);
    assert.match(refused.body.detail, /workflow:execute/);
    assertDialect('problem', await execute(await as(viewer, 'person'), 'no-such-workflow'), 404);
    assert.equal((await execute(await as(admin, 'person'))).status, 503);
  });

  it('does not honour a grant of a role the user’s type may not hold (the bulk grant route refuses to make one)', async () => {
    const admin = await as(await grantAdmin(db, org), 'person');
    const { userId: person } = await grantRole(db, org, 'viewer');
    // `ci` is for service accounts: the API refuses it to a person…
    const refused = await t.request
      .post(`/user/${person}/grant`)
      .set('Authorization', admin)
      .send([{ nrn: `organization=${org}`, role_slug: 'ci' }]);
    assertDialect('admin', refused, 400);
    assert.equal(refused.body.cause.code, 'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED');
    // …and a row written another way gives the person nothing: publishing needs workflow:write, which only `ci` carries here.
    await GrantRepository.of(db.manager).grantRoleOnce('ci', [{ organizationId: org, userId: person, nrn: `organization=${org}` }]);
    const publish = (auth: string, key: string) =>
      t.request.post('/workflows/definitions').set('Authorization', auth).send(definition(key));
    const asPerson = await publish(await as(person, 'person'), 'person-with-ci');
    assertDialect('problem', asPerson, 403);
    assert.match(asPerson.body.detail, /workflow:write/);
    // The same grants held by a service account are honoured (twice: the second publish writes under remembered grants).
    const robot = await as(await serviceAccount(['viewer', 'ci']), 'service_account');
    assert.equal((await publish(robot, 'robot-with-ci')).status, 201);
    assert.equal((await publish(robot, 'robot-with-ci-again')).status, 201);
    // `secops` is for people: a service account holding it may not write config entries.
    const auditor = await as(await serviceAccount(['viewer', 'secops']), 'service_account');
    const entry = await t.request.post('/workflows/config').set('Authorization', auditor).send({ name: 'REGION', value: 'eu', path: '/' });
    assert.equal(entry.status, 403, entry.text);
    const { userId: person2 } = await grantRole(db, org, 'viewer');
    await GrantRepository.of(db.manager).grantRoleOnce('secops', [{ organizationId: org, userId: person2, nrn: `organization=${org}` }]);
    const byPerson = await t.request
      .post('/workflows/config')
      .set('Authorization', await as(person2, 'person'))
      .send({ name: 'ZONE', value: 'a', path: '/' });
    assert.equal(byPerson.status, 201, byPerson.text);
  });
});
