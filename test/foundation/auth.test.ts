import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import supertest from 'supertest';
import { createApp } from '../../api/app';
import { createTokenVerifier, mintToken } from '../../api/http/auth';
import { createTestApp, type TestApp } from '../support/app';
import { assertDialect, type Family } from '../support/dialects';
import { captureLogger } from '../support/logger';
import { FAMILY_PREFIXES, probeRoutes } from '../support/probe-routes';

type PrivateKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

function unsignedToken(claims: Record<string, unknown>): string {
  const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${encode({ alg: 'none', typ: 'JWT' })}.${encode(claims)}.`;
}

describe('authentication', () => {
  let t: TestApp;
  before(() => {
    t = createTestApp({ routes: probeRoutes() });
  });

  for (const family of Object.keys(FAMILY_PREFIXES) as Family[]) {
    const path = `${FAMILY_PREFIXES[family]}/1`;
    describe(`answers 401 in the ${family} dialect`, () => {
      it('without a token', async () => {
        const response = await t.request.get(path);
        assertDialect(family, response, 401);
        assert.equal(response.headers['www-authenticate'], 'Bearer');
      });
      it('with a malformed Authorization header', async () => {
        assertDialect(family, await t.request.get(path).set('Authorization', 'Basic dXNlcjpwdw=='), 401);
        assertDialect(family, await t.request.get(path).set('Authorization', 'Bearer not-a-jwt'), 401);
      });
      it('with an expired token', async () => {
        const token = await t.token({ organizationId: '1', expiresIn: Math.floor(Date.now() / 1000) - 60 });
        const response = await t.request.get(path).set('Authorization', `Bearer ${token}`);
        assertDialect(family, response, 401);
        assert.match(JSON.stringify(response.body), /expired/);
      });
      it('with a token signed by another key', async () => {
        const token = await mintToken({ userId: '1', organizationId: '1', userType: 'person', secret: new Uint8Array(32).fill(7) });
        assertDialect(family, await t.request.get(path).set('Authorization', `Bearer ${token}`), 401);
      });
      it('with an unsigned (alg: none) token', async () => {
        const token = unsignedToken({ sub: '1', organization_id: 1, user_type: 'person', exp: Math.floor(Date.now() / 1000) + 600 });
        assertDialect(family, await t.request.get(path).set('Authorization', `Bearer ${token}`), 401);
      });
      it('with claims missing or wrong', async () => {
        const sign = (claims: Record<string, unknown>) =>
          new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(t.secret);
        for (const claims of [
          { organization_id: 1 },
          { sub: '1' },
          { sub: '1', organization_id: 'acme' },
          { sub: '1', organization_id: 1, user_type: 'robot' },
        ]) {
          assertDialect(family, await t.request.get(path).set('Authorization', `Bearer ${await sign(claims)}`), 401);
        }
      });
    });
  }

  it('accepts a valid HS256 token and exposes its claims', async () => {
    const token = await t.token({ userId: '42', organizationId: '9', userType: 'service_account' });
    const response = await t.request.get(`${FAMILY_PREFIXES.problem}/5`).set('Authorization', `Bearer ${token}`);
    assert.equal(response.status, 200);
    assert.deepEqual(response.body, { id: 5, organizationId: '9' });
  });

  it('stops accepting a remembered token once it expires', async () => {
    const verifier = createTokenVerifier({ kind: 'hs256', secret: t.secret });
    const token = await t.token({ organizationId: '4', expiresIn: Math.floor(Date.now() / 1000) + 2 });
    assert.equal((await verifier.verify(token)).organizationId, '4');
    assert.equal((await verifier.verify(token)).organizationId, '4', 'answered again (from memory)');
    await new Promise((resolve) => setTimeout(resolve, 2100));
    await assert.rejects(verifier.verify(token), /expired/);
  });

  it('leaves anonymous routes open', async () => {
    for (const path of ['/health', '/openapi.json', '/docs', '/metrics']) {
      assert.equal((await t.request.get(path)).status, 200, path);
    }
  });

  describe('RS256 through a JWKS', () => {
    let jwksServer: http.Server;
    let jwksUrl: string;
    let privateKey: PrivateKey;
    let otherKey: PrivateKey;

    before(async () => {
      const pair = await generateKeyPair('RS256');
      privateKey = pair.privateKey;
      otherKey = (await generateKeyPair('RS256')).privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
      jwksServer = http.createServer((_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(JSON.stringify({ keys: [jwk] }));
      });
      await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/.well-known/jwks.json`;
    });
    after(() => new Promise((resolve) => jwksServer.close(resolve)));

    function appWithJwks() {
      const app = createApp({
        config: { bodyLimitBytes: 1024, publicBaseUrl: 'http://api.test' },
        logger: captureLogger().logger,
        verifier: createTokenVerifier({ kind: 'jwks', url: jwksUrl }),
        readiness: {},
        routes: probeRoutes(),
      });
      return supertest(app.koa.callback());
    }
    const sign = (key: PrivateKey, alg = 'RS256') =>
      new SignJWT({ organization_id: 3, user_type: 'person' })
        .setProtectedHeader({ alg, kid: 'test-key' })
        .setSubject('77')
        .setExpirationTime('5m')
        .sign(key);

    it('accepts a token signed by a key of the JWKS', async () => {
      const response = await appWithJwks()
        .get('/workflows/probe/1')
        .set('Authorization', `Bearer ${await sign(privateKey)}`);
      assert.equal(response.status, 200);
      assert.equal(response.body.organizationId, '3');
    });

    it('rejects a token signed by a key outside the JWKS', async () => {
      const response = await appWithJwks()
        .get('/workflows/probe/1')
        .set('Authorization', `Bearer ${await sign(otherKey)}`);
      assertDialect('problem', response, 401);
    });

    it('rejects an HS256 token when only RS256 is configured', async () => {
      const token = await mintToken({ userId: '1', organizationId: '1', userType: 'person', secret: new Uint8Array(32).fill(1) });
      assertDialect('admin', await appWithJwks().get('/probe/1').set('Authorization', `Bearer ${token}`), 401);
    });
  });
});
