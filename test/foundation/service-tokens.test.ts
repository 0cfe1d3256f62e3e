import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { createTokenVerifier, mintToken } from '../../api/http/auth';
import { SERVICE_TOKEN_ISSUER, createServiceTokens, deriveServiceKey } from '../../api/http/service-tokens';
import { parseConfig } from '../../config/config';
import { resolveServiceSecrets } from '../../startup/service-secrets';
import { createTestApp } from '../support/app';
import { probeRoutes } from '../support/probe-routes';

/** Resolves with the 401 message, rejects when the token was accepted. */
async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.equal((error as { status?: number }).status, 401);
    return (error as Error).message;
  }
  assert.fail('the token was accepted');
}

describe('service tokens (the service signs its own)', () => {
  const serviceKey = randomBytes(32);
  const service = createServiceTokens(serviceKey);
  const identity = { userId: '12', organizationId: '34', userType: 'service_account' as const };

  it('are accepted beside HS256 tokens of AUTH_JWT_SECRET, and carry grants and the key id', async () => {
    const secret = randomBytes(32);
    const verifier = createTokenVerifier({ kind: 'hs256', secret }, {}, service);
    const grants = [{ nrn: '34:5', role_slug: 'viewer', permissions: ['workflow:read'] }];
    const token = await service.mint({ ...identity, grants, apiKeyId: '9' }, 60);
    assert.deepEqual(await verifier.verify(token), { ...identity, grants, apiKeyId: '9' });
    const external = await mintToken({ ...identity, secret });
    assert.deepEqual(await verifier.verify(external), identity);
  });

  it('through the app: a route sees the identity of a service token', async () => {
    const t = createTestApp({ routes: probeRoutes() });
    const token = await t.serviceTokens.mint({ userId: '7', organizationId: '8', userType: 'person' }, 60);
    const response = await t.request.get('/workflows/probe/1').set('Authorization', `Bearer ${token}`);
    assert.equal(response.status, 200, JSON.stringify(response.body));
    assert.equal(response.body.organizationId, '8');
  });

  it('are refused when signed by another key, expired, or without the service issuer key', async () => {
    const verifier = createTokenVerifier({ kind: 'hs256', secret: randomBytes(32) }, {}, service);
    const foreign = await createServiceTokens(randomBytes(32)).mint(identity, 60);
    assert.match(await refusal(verifier.verify(foreign)), /signature/);
    const expired = await new SignJWT({ organization_id: '34', user_type: 'person' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(SERVICE_TOKEN_ISSUER)
      .setSubject('12')
      .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
      .sign(serviceKey);
    assert.match(await refusal(verifier.verify(expired)), /expired/);
    // A verifier without the service key knows nothing of them.
    const plain = createTokenVerifier({ kind: 'hs256', secret: randomBytes(32) });
    await refusal(plain.verify(await service.mint(identity, 60)));
  });

  it('malformed grants in a service token are refused', async () => {
    const verifier = createTokenVerifier({ kind: 'hs256', secret: randomBytes(32) }, {}, service);
    const token = await new SignJWT({ organization_id: '34', user_type: 'person', grants: [{ nrn: 5 }] })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer(SERVICE_TOKEN_ISSUER)
      .setSubject('12')
      .setExpirationTime('1m')
      .sign(serviceKey);
    assert.match(await refusal(verifier.verify(token)), /grants/);
  });

  describe('when tokens come from an external issuer (AUTH_JWKS_URL)', () => {
    let server: http.Server;
    let url: string;
    let privateKey: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
    before(async () => {
      const pair = await generateKeyPair('RS256');
      privateKey = pair.privateKey;
      const jwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
      server = http.createServer((_req, res) => res.end(JSON.stringify({ keys: [jwk] })));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });
    after(() => new Promise((resolve) => server.close(resolve)));

    const external = (iss: string) =>
      new SignJWT({ organization_id: 3, user_type: 'person' })
        .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
        .setIssuer(iss)
        .setSubject('77')
        .setExpirationTime('5m')
        .sign(privateKey);

    it("accepts the issuer's tokens and the service's own", async () => {
      const verifier = createTokenVerifier({ kind: 'jwks', url }, { issuer: 'https://idp.test' }, service);
      assert.deepEqual(await verifier.verify(await external('https://idp.test')), {
        userId: '77',
        organizationId: '3',
        userType: 'person',
      });
      assert.deepEqual(await verifier.verify(await service.mint(identity, 60)), identity);
    });

    it('refuses a token of the external key that claims the service issuer (no algorithm confusion)', async () => {
      const verifier = createTokenVerifier({ kind: 'jwks', url }, {}, service);
      assert.match(await refusal(verifier.verify(await external(SERVICE_TOKEN_ISSUER))), /algorithm/);
      // And a service-key HS256 token with another issuer goes to the JWKS, which takes no HS256.
      const hs = await new SignJWT({ organization_id: '34', user_type: 'person' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuer('https://idp.test')
        .setSubject('12')
        .setExpirationTime('1m')
        .sign(serviceKey);
      await refusal(verifier.verify(hs));
    });

    it('refuses to start with AUTH_JWT_ISSUER set to the service issuer', () => {
      assert.throws(() => createTokenVerifier({ kind: 'jwks', url }, { issuer: SERVICE_TOKEN_ISSUER }, service));
    });
  });

  describe('the service key', () => {
    it('is AUTH_SERVICE_KEY when set, else derived from the encryption key (the same on every replica)', async () => {
      const encryptionKey = randomBytes(32).toString('hex');
      const base = { DATA_DIR: '/nonexistent-data-dir', AUTH_JWKS_URL: 'https://idp.test/jwks.json', CONFIG_ENCRYPTION_KEY: encryptionKey };
      const derived = await resolveServiceSecrets(parseConfig(base));
      const again = await resolveServiceSecrets(parseConfig(base));
      assert.deepEqual(derived.serviceKey, again.serviceKey);
      assert.deepEqual(derived.serviceKey, deriveServiceKey(Buffer.from(encryptionKey, 'hex')));
      assert.notDeepEqual(Buffer.from(derived.serviceKey), Buffer.from(encryptionKey, 'hex'));
      const configured = 'k'.repeat(40);
      const set = await resolveServiceSecrets(parseConfig({ ...base, AUTH_SERVICE_KEY: configured }));
      assert.equal(Buffer.from(set.serviceKey).toString(), configured);
    });

    it('AUTH_SERVICE_KEY shorter than 32 bytes is a configuration error', () => {
      assert.throws(() => parseConfig({ AUTH_SERVICE_KEY: 'short' }), /AUTH_SERVICE_KEY/);
    });
  });
});
