/**
 * Console sign-in through a real OpenID Connect provider (panva's oidc-provider,
 * started here on its own port with its development login pages) in a real
 * browser against the real app: the sign-in page offers the provider, the
 * browser goes there and back with state, nonce and PKCE, the ID token's
 * claims map to the platform identity (custom claim names, a `sub` that is not
 * a platform id), and the session then works for what that identity may do.
 * A tampered state and an account without the organization claim are refused
 * with a message and nothing signed in; signing out ends both sessions.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import Provider from 'oidc-provider';
import type { Page } from 'playwright-core';
import { OIDC_TRANSACTION_COOKIE } from '../../api/console/oidc-transaction';
import { SERVICE_TOKEN_ISSUER } from '../../api/http/service-tokens';
import { SESSION_COOKIE } from '../../api/http/session-cookie';
import type { OidcSettings } from '../../config/oidc';
import { useConsole } from './support';

/** Filled in once both ports are known (the app's client reads them on first use). */
const settings: OidcSettings = {
  issuerUrl: 'http://127.0.0.1:1',
  clientId: 'platform-console',
  redirectUrl: '',
  postLogoutRedirectUrl: '',
  scopes: ['openid', 'platform'],
  providerName: 'Test IdP',
  claims: { userId: 'platform_user', organizationId: 'platform_org', userType: 'user_type' },
};

describe('console sign-in through a real OpenID Connect provider', function () {
  this.timeout(120_000);
  const ui = useConsole({ withWorker: false, console: { oidc: settings } });
  const { env, org } = ui;
  let idp: Server;
  let page: Page;
  /** The provider's accounts by login name: the claims each one's ID token carries. */
  const accounts = new Map<string, Record<string, unknown>>();

  before(async () => {
    page = ui.page;
    idp = createServer();
    await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(idp.address() as AddressInfo).port}`;
    const provider = new Provider(issuer, {
      clients: [
        {
          client_id: settings.clientId,
          token_endpoint_auth_method: 'none',
          redirect_uris: [`${ui.base}/console/oidc/callback`],
          post_logout_redirect_uris: [`${ui.base}/console/sign-in`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { openid: ['sub'], platform: ['platform_user', 'platform_org', 'user_type'] },
      scopes: ['openid', 'platform'],
      // The mapped claims ride in the ID token itself, as the console reads them there.
      conformIdTokenClaims: false,
      findAccount: (_ctx, sub) => ({ accountId: sub, claims: () => ({ sub, ...accounts.get(sub) }) }),
      cookies: { keys: ['oidc-test-cookie-key'] },
    });
    idp.on('request', provider.callback());
    Object.assign(settings, {
      issuerUrl: issuer,
      redirectUrl: `${ui.base}/console/oidc/callback`,
      postLogoutRedirectUrl: `${ui.base}/console/sign-in`,
    });
    accounts.set('alice', { platform_user: org.userId, platform_org: Number(org.id) });
    accounts.set('no-org', { platform_user: org.userId });
    // The provider's development pages import a web font: no network here.
    await ui.browser.context.route('https://fonts.googleapis.com/**', (route) => route.abort());
    await ui.browser.context.clearCookies();
  });
  after(async () => {
    await new Promise((resolve) => idp?.close(resolve));
  });

  const sessionCookie = async () => (await ui.browser.context.cookies(ui.base)).find((k) => k.name === SESSION_COOKIE);

  /** At the provider's login page: logs in as `login` (and consents, the first time) until the browser is back at the console. */
  const loginAtProvider = async (login: string) => {
    await page.waitForSelector('input[name="login"]');
    assert.ok(page.url().startsWith(settings.issuerUrl), page.url());
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', 'any');
    await page.click('button[type="submit"]');
    await page.waitForURL((url) => url.href.startsWith(ui.base) || url.pathname.includes('/interaction/'));
    if (!page.url().startsWith(ui.base)) await page.click('button:has-text("Continue")');
    await page.waitForURL((url) => url.href.startsWith(`${ui.base}/console/`));
  };

  /** From the console's sign-in page through the provider as `login`. */
  const signInAt = async (login: string) => {
    await page.goto(`${ui.base}/console/`);
    await page.click('#oidc-sign-in');
    await loginAtProvider(login);
  };

  it('offers the provider on the sign-in page, signs in through it with the mapped identity, and the session acts as that identity', async () => {
    await page.goto(`${ui.base}/console/`);
    const button = await page.waitForSelector('#oidc-sign-in');
    assert.equal(await button.textContent(), 'Sign in with Test IdP');

    await signInAt('alice');
    await page.waitForSelector('header .who');
    assert.match((await page.textContent('header .who')) ?? '', new RegExp(`user ${org.userId} · organization ${org.id}`));
    // The mapped user is the organization's administrator: the console shows what only it may do.
    await page.waitForSelector('.admin-link[data-admin="yes"]');

    const cookies = await ui.browser.context.cookies(ui.base);
    const session = cookies.find((k) => k.name === SESSION_COOKIE);
    assert.ok(session?.httpOnly && session.sameSite === 'Strict', JSON.stringify(cookies));
    // The session is the service's own token for the mapped identity, not the provider's ID token.
    const claims = decodeJwt(session.value);
    assert.equal(claims.iss, SERVICE_TOKEN_ISSUER);
    assert.equal(claims.sub, org.userId);
    assert.equal(
      cookies.find((k) => k.name === OIDC_TRANSACTION_COOKIE),
      undefined,
      'the transaction is used up',
    );
    const who = (await page.evaluate(async () => (await fetch('/console/session')).json())) as Record<string, unknown>;
    assert.equal(who.userId, org.userId);
    assert.equal(who.organizationId, org.id);
    assert.equal(who.userType, 'person');

    // A cookie-authenticated write only the organization's administrator may make.
    const created = await page.evaluate(async (org) => {
      const res = await fetch('/account', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-console-request': '1' },
        body: JSON.stringify({ name: 'Signed in through OIDC', organization_id: org }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    }, Number(org.id));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(String(created.body.organization_id), org.id);
  });

  it('signing out clears the session and ends the provider’s session too', async () => {
    assert.ok(await sessionCookie(), 'signed in by the test before');
    await page.goto(`${ui.base}/console/`);
    await page.click('header .who button:has-text("Sign out")');
    // The provider asks to confirm ending its own session, then sends the browser back to the sign-in page.
    await page.waitForSelector('button[name="logout"][value="yes"]');
    assert.ok(page.url().startsWith(settings.issuerUrl), page.url());
    await page.click('button[name="logout"][value="yes"]');
    await page.waitForURL(`${ui.base}/console/sign-in**`);
    await page.waitForSelector('#oidc-sign-in');
    assert.equal(await sessionCookie(), undefined);
    assert.equal(await page.evaluate(async () => (await fetch('/console/session')).status), 401);
    // The provider forgot the person too: signing in again asks for the login.
    await page.click('#oidc-sign-in');
    await page.waitForSelector('input[name="login"]');
  });

  it('refuses a callback whose state is not the one this browser sent: a message on the sign-in page, nothing signed in', async () => {
    await ui.browser.context.clearCookies();
    // This browser starts a sign-in (its transaction cookie holds its state) ...
    await page.goto(`${ui.base}/console/`);
    await page.click('#oidc-sign-in');
    await page.waitForSelector('input[name="login"]');
    // ... but comes back with the provider's real answer to a sign-in started elsewhere (login CSRF).
    const elsewhere = await env.t.request.get('/console/oidc/login').expect(302);
    await page.goto(elsewhere.headers.location);
    await loginAtProvider('alice');
    const alert = await page.waitForSelector('[data-oidc-error]');
    assert.equal(await alert.getAttribute('data-oidc-error'), 'state_mismatch');
    assert.match((await alert.textContent()) ?? '', /state mismatch/);
    assert.equal(new URL(page.url()).hash, '', 'the failure left the address bar');
    assert.equal(await sessionCookie(), undefined);
    assert.equal(await page.evaluate(async () => (await fetch('/console/session')).status), 401);
  });

  it('refuses an account without the organization claim, naming the claim', async () => {
    await ui.browser.context.clearCookies();
    await signInAt('no-org');
    const alert = await page.waitForSelector('[data-oidc-error]');
    assert.equal(await alert.getAttribute('data-oidc-error'), 'claim_missing');
    assert.match((await alert.textContent()) ?? '', /platform_org/);
    assert.equal(await sessionCookie(), undefined);
  });

  it('over HTTP: a callback without this browser’s transaction, and an issuer error, land on the sign-in page', async () => {
    const stray = await env.t.request.get('/console/oidc/callback?code=abc&state=xyz').expect(302);
    assert.equal(stray.headers.location, '/console/sign-in#error=expired');
    assert.ok(!String(stray.headers['set-cookie'] ?? '').includes(`${SESSION_COOKIE}=ey`));
    const login = await env.t.request.get('/console/oidc/login?return_to=https://evil.test/').expect(302);
    assert.ok(login.headers.location.startsWith(`${settings.issuerUrl}/`), login.headers.location);
    const authorization = new URL(login.headers.location);
    assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
    for (const p of ['state', 'nonce', 'code_challenge']) assert.ok(authorization.searchParams.get(p), p);
    const transaction = String(login.headers['set-cookie']).split(';')[0];
    assert.match(String(login.headers['set-cookie']), /httponly/i);
    assert.equal(decodeJwt(transaction.split('=')[1]).returnTo, '/console/', 'a return address off the console is not kept');
    const denied = await env.t.request
      .get(`/console/oidc/callback?error=access_denied&state=${authorization.searchParams.get('state')}`)
      .set('Cookie', transaction)
      .expect(302);
    assert.equal(denied.headers.location, '/console/sign-in#error=issuer_error&detail=access_denied');
    const offer = await env.t.request.get('/console/oidc').expect(200);
    assert.deepEqual(offer.body, { enabled: true, providerName: 'Test IdP', loginPath: '/console/oidc/login' });
  });
});
