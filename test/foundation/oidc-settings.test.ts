/**
 * The pure parts of console sign-in through OpenID Connect: the `OIDC_*`
 * settings (defaults, refusals), the mapping of ID-token claims to the platform
 * identity, and the signed transaction cookie (another key's or a stale one is
 * no transaction). The flow itself runs against a real provider in
 * test/console/oidc.test.ts.
 */
import assert from 'node:assert/strict';
import { ConfigError, parseConfig } from '../../config/config';
import { identityFromClaims } from '../../api/console/oidc-claims';
import { OidcFailure } from '../../api/console/oidc-failures';
import { readTransactionCookie, setTransactionCookie, transactionKey } from '../../api/console/oidc-transaction';
import { DEFAULT_OIDC_CLAIMS } from '../../config/oidc';

const problems = (env: Record<string, string>): string[] => {
  try {
    parseConfig(env, '/srv');
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

describe('console OIDC: settings, claim mapping, transaction cookie', () => {
  it('is off without OIDC_ISSUER_URL, and has documented defaults with it', () => {
    assert.equal(parseConfig({}, '/srv').oidc, undefined);
    const config = parseConfig(
      { PUBLIC_BASE_URL: 'https://platform.example.com', OIDC_ISSUER_URL: 'https://id.example.com/realms/ops/', OIDC_CLIENT_ID: 'console' },
      '/srv',
    );
    assert.deepEqual(config.oidc, {
      issuerUrl: 'https://id.example.com/realms/ops/',
      clientId: 'console',
      clientSecret: undefined,
      redirectUrl: 'https://platform.example.com/console/oidc/callback',
      postLogoutRedirectUrl: 'https://platform.example.com/console/sign-in',
      scopes: ['openid', 'profile'],
      providerName: 'id.example.com',
      claims: { userId: 'sub', organizationId: 'organization_id', userType: 'user_type' },
    });
    const custom = parseConfig(
      {
        OIDC_ISSUER_URL: 'http://localhost:9000',
        OIDC_CLIENT_ID: 'console',
        OIDC_CLIENT_SECRET: 's3cret',
        OIDC_SCOPES: 'email platform',
        OIDC_PROVIDER_NAME: 'Acme SSO',
        OIDC_USER_ID_CLAIM: 'platform_user',
        OIDC_ORGANIZATION_CLAIM: 'https://acme.example/org',
        OIDC_USER_TYPE_CLAIM: 'kind',
        OIDC_REDIRECT_URL: 'https://console.acme.example/console/oidc/callback',
      },
      '/srv',
    ).oidc!;
    assert.deepEqual(custom.scopes, ['openid', 'email', 'platform']);
    assert.equal(custom.clientSecret, 's3cret');
    assert.equal(custom.providerName, 'Acme SSO');
    assert.equal(custom.redirectUrl, 'https://console.acme.example/console/oidc/callback');
    assert.deepEqual(custom.claims, { userId: 'platform_user', organizationId: 'https://acme.example/org', userType: 'kind' });
  });

  it('refuses a half configuration, plain http off loopback, and malformed claim names, naming each variable', () => {
    assert.match(problems({ OIDC_CLIENT_ID: 'console' }).join('\n'), /OIDC_CLIENT_ID is set without OIDC_ISSUER_URL/);
    assert.match(problems({ OIDC_ISSUER_URL: 'https://id.example.com' }).join('\n'), /OIDC_CLIENT_ID is required/);
    const found = problems({
      OIDC_ISSUER_URL: 'http://id.example.com',
      OIDC_CLIENT_ID: 'console',
      OIDC_USER_ID_CLAIM: 'user id',
      OIDC_REDIRECT_URL: 'https://x.example/cb?next=1',
      OIDC_SCOPES: 'openid bad"scope',
    }).join('\n');
    for (const expected of [
      /OIDC_ISSUER_URL must be an https URL/,
      /OIDC_USER_ID_CLAIM must be a claim name/,
      /OIDC_REDIRECT_URL must not carry a query/,
      /OIDC_SCOPES has an invalid scope/,
    ]) {
      assert.match(found, expected);
    }
  });

  it('maps claims to the identity: canonical ids, person by default; a missing or unusable claim is named', () => {
    const names = { userId: 'uid', organizationId: 'org', userType: 'kind' };
    assert.deepEqual(identityFromClaims({ uid: '42', org: 7 }, names), { userId: '42', organizationId: '7', userType: 'person' });
    assert.deepEqual(identityFromClaims({ uid: 42, org: '7', kind: 'service_account' }, names), {
      userId: '42',
      organizationId: '7',
      userType: 'service_account',
    });
    const failure = (claims: Record<string, unknown>) => {
      try {
        identityFromClaims(claims, names);
      } catch (error) {
        assert.ok(error instanceof OidcFailure);
        return `${error.code}:${error.detail}`;
      }
      return 'signed in';
    };
    assert.equal(failure({ org: 7 }), 'claim_missing:uid');
    assert.equal(failure({ uid: 'alice', org: 7 }), 'claim_invalid:uid');
    assert.equal(failure({ uid: '42', org: '007' }), 'claim_invalid:org');
    assert.equal(failure({ uid: '42', org: 7, kind: 'admin' }), 'claim_invalid:kind');
    // The defaults read the claims the API's own tokens carry.
    assert.deepEqual(identityFromClaims({ sub: '5', organization_id: 9 }, DEFAULT_OIDC_CLAIMS).organizationId, '9');
  });

  it('reads back only a transaction cookie signed with this key', async () => {
    const jar = new Map<string, string>();
    const ctx = {
      secure: false,
      cookies: { get: (name: string) => jar.get(name), set: (name: string, value: string) => jar.set(name, value) },
    };
    const key = transactionKey(new Uint8Array(32).fill(1));
    const transaction = { state: 's', nonce: 'n', codeVerifier: 'v', returnTo: '/console/' };
    await setTransactionCookie(ctx as never, key, transaction);
    assert.deepEqual(await readTransactionCookie(ctx as never, key), transaction);
    const otherKey = transactionKey(new Uint8Array(32).fill(2));
    await assert.rejects(readTransactionCookie(ctx as never, otherKey), (error: OidcFailure) => error.code === 'expired');
    jar.clear();
    await assert.rejects(readTransactionCookie(ctx as never, key), (error: OidcFailure) => error.code === 'expired');
  });
});
