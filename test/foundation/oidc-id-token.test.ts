/**
 * The console's OpenID Connect client checks the ID token's signature against
 * the issuer's JWKS, although the token comes straight from the issuer's token
 * endpoint: an issuer here that publishes one key and signs with another is
 * refused, the same issuer signing with its published key is accepted. (The
 * whole flow runs against a real provider in test/console/oidc.test.ts; this
 * issuer is hand-made so that it can misbehave.)
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import { createOidcClient } from '../../api/console/oidc-client';
import { OidcFailure } from '../../api/console/oidc-failures';
import type { OidcSettings } from '../../config/oidc';

describe('console OIDC client: the ID token signature', () => {
  let server: Server;
  let issuer: string;
  let published: CryptoKey;
  let other: CryptoKey;
  /** The key the token endpoint signs with, and the nonce it puts in the ID token. */
  let signWith: CryptoKey;
  let nonce = '';

  before(async () => {
    const a = await generateKeyPair('RS256');
    const b = await generateKeyPair('RS256');
    published = a.privateKey;
    other = b.privateKey;
    const jwk = { ...(await exportJWK(a.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    server = createServer((req, res) => {
      const reply = (body: unknown) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      if (req.url === '/.well-known/openid-configuration') {
        return reply({
          issuer,
          authorization_endpoint: `${issuer}/auth`,
          token_endpoint: `${issuer}/token`,
          jwks_uri: `${issuer}/jwks`,
          response_types_supported: ['code'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (req.url === '/jwks') return reply({ keys: [jwk] });
      if (req.url === '/token' && req.method === 'POST') {
        void new SignJWT({ nonce, organization_id: 7 })
          .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
          .setIssuer(issuer)
          .setAudience('console')
          .setSubject('42')
          .setIssuedAt()
          .setExpirationTime('5m')
          .sign(signWith)
          .then((idToken) => reply({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: idToken }));
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  const signIn = async (key: CryptoKey) => {
    const settings: OidcSettings = {
      issuerUrl: issuer,
      clientId: 'console',
      redirectUrl: 'http://127.0.0.1:1/console/oidc/callback',
      postLogoutRedirectUrl: 'http://127.0.0.1:1/console/sign-in',
      scopes: ['openid'],
      providerName: 'Hand-made',
      claims: { userId: 'sub', organizationId: 'organization_id', userType: 'user_type' },
    };
    const client = createOidcClient(settings);
    const { transaction } = await client.begin('/console/');
    signWith = key;
    nonce = transaction.nonce;
    return client.finish(new URLSearchParams({ code: 'c', state: transaction.state }), transaction);
  };

  it('accepts an ID token signed with the key the issuer publishes', async () => {
    const claims = await signIn(published);
    assert.equal(claims.sub, '42');
    assert.equal(claims.organization_id, 7);
  });

  it('refuses an ID token signed with another key', async () => {
    await assert.rejects(signIn(other), (error: OidcFailure) => error instanceof OidcFailure && error.code === 'token_rejected');
  });
});
