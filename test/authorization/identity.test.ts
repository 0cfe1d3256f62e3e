/** Token claims: exp required, audience and issuer when configured, ids as canonical digit strings. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { createApp } from '../../api/app';
import { createTokenVerifier, type ExpectedClaims } from '../../api/http/auth';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import supertest from 'supertest';
import { testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantAdmin } from '../support/grants';
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
