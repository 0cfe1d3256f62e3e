/**
 * The console's serving and session over HTTP (no browser): the page and its
 * assets with their security and cache headers, sign-in by token and by
 * one-time code, and the session cookie authenticating API calls like the token,
 * with writes refused unless they carry the console header from this origin.
 */
import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import { SignInCodes } from '../../api/console/sign-in-codes';
import { CONSOLE_CSP } from '../../api/console/static-assets';
import { mintToken } from '../../api/http/auth';
import { CONSOLE_ASSETS_DIR, ensureConsoleBuilt } from '../../startup/console-build';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { grantAdmin, grantRole } from '../support/grants';
import { probeRoutes } from '../support/probe-routes';

const HEADER = { 'x-console-request': '1' };

describe('console: serving and session cookie', function () {
  this.timeout(60_000);
  let db: DataSource;
  let t: TestApp;
  let now = Date.now();
  const codes = new SignInCodes(60_000, () => now);
  let writes: unknown[];
  let org: string;
  let adminToken: string;

  before(async () => {
    await ensureConsoleBuilt();
    db = await testDataSource();
    writes = [];
    t = createTestApp({
      routes: probeRoutes({ onWrite: (body) => writes.push(body) }),
      console: {
        assetsDir: CONSOLE_ASSETS_DIR,
        dataSource: db,
        signIn: { codes, mint: (identity) => mintToken({ ...identity, userType: 'person', secret: t.secret, expiresIn: '1h' }) },
      },
    });
    org = newOrganizationId();
    adminToken = await t.token({ organizationId: org, userId: await grantAdmin(db, org) });
  });

  /** Signs in with the token and answers the session cookie ("name=value"). */
  const cookieFor = async (token: string): Promise<string> => {
    const res = await t.request.post('/console/session').set(HEADER).send({ token }).expect(200);
    return String(res.headers['set-cookie']?.[0]).split(';')[0];
  };

  it('serves the page for every console path with a strict CSP and no inline script, and hashed assets cached for a year', async () => {
    for (const path of ['/console', '/console/', '/console/executions/exec_1']) {
      const res = await t.request.get(path).expect(200);
      assert.equal(res.headers['content-security-policy'], CONSOLE_CSP);
      assert.equal(res.headers['cache-control'], 'no-cache');
      assert.equal(res.headers['x-frame-options'], 'DENY');
      assert.doesNotMatch(res.text, /<script(?![^>]*\bsrc=)[^>]*>/);
      assert.doesNotMatch(res.text, /\son[a-z]+=/i);
    }
    const page = await t.request.get('/console/').expect(200);
    const script = /src="(\/console\/assets\/main-[A-Z0-9]+\.js)"/.exec(page.text)?.[1];
    const style = /href="(\/console\/assets\/styles-[A-Z0-9]+\.css)"/.exec(page.text)?.[1];
    assert.ok(script && style, page.text);
    const js = await t.request.get(script).expect(200);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(js.headers['content-type'], /javascript/);
    assert.match((await t.request.get(style).expect(200)).headers['content-type'], /text\/css/);
    await t.request.get('/console/assets/nope.js').expect(404);
    await t.request.get('/console/assets/..%2F..%2Fpackage.json').expect(404);
    await t.request.get('/console/assets/../index.html').expect(404);
  });

  it('has an icon: the page links a hashed SVG the CSP allows, and /favicon.ico answers it', async () => {
    const page = await t.request.get('/console/').expect(200);
    const icon = /<link rel="icon" type="image\/svg\+xml" href="(\/console\/assets\/favicon-[0-9a-f]{8}\.svg)">/.exec(page.text)?.[1];
    assert.ok(icon, page.text);
    assert.match(CONSOLE_CSP, /img-src 'self'/); // an icon is an image: same origin is allowed
    const linked = await t.request.get(icon).buffer(true).expect(200);
    assert.equal(linked.headers['content-type'], 'image/svg+xml');
    assert.equal(linked.headers['cache-control'], 'public, max-age=31536000, immutable');
    const root = await t.request.get('/favicon.ico').buffer(true).expect(200);
    assert.equal(root.headers['content-type'], 'image/svg+xml');
    assert.match(String(root.body), /^<svg /);
    assert.deepEqual(root.body, linked.body);
    await t.request.head('/favicon.ico').expect(200);
  });

  it('signs in with a token: HttpOnly SameSite=Strict cookie; bad tokens and missing console header are refused', async () => {
    await t.request.post('/console/session').send({ token: adminToken }).expect(403);
    const bad = await t.request.post('/console/session').set(HEADER).send({ token: 'not.a.token' }).expect(401);
    assert.equal(bad.headers['set-cookie'], undefined);
    await t.request.post('/console/session').set(HEADER).send({}).expect(400);
    await t.request.post('/console/session').set(HEADER).send({ token: adminToken, code: 'x' }).expect(400);
    await t.request
      .post('/console/session')
      .set(HEADER)
      .send({ token: 'a'.repeat(3801) })
      .expect(400);
    const res = await t.request.post('/console/session').set(HEADER).send({ token: adminToken }).expect(200);
    const cookie = String(res.headers['set-cookie']?.[0]);
    assert.match(cookie, /^platform_console_session=/);
    assert.match(cookie, /httponly/i);
    assert.match(cookie, /samesite=strict/i);
    assert.match(cookie, /path=\//);
    assert.equal(res.body.organizationId, org);
    const who = await t.request.get('/console/session').set('Cookie', cookie.split(';')[0]).expect(200);
    assert.equal(who.body.organizationId, org);
    await t.request.get('/console/session').expect(401);
  });

  it('a one-time code works once and only before it expires', async () => {
    const identity = { userId: '1', organizationId: org };
    const code = codes.issue(identity);
    const res = await t.request.post('/console/session').set(HEADER).send({ code }).expect(200);
    assert.equal(res.body.userId, '1');
    await t.request.post('/console/session').set(HEADER).send({ code }).expect(401);
    const late = codes.issue(identity);
    now += 61_000;
    await t.request.post('/console/session').set(HEADER).send({ code: late }).expect(401);
    await t.request.post('/console/session').set(HEADER).send({ code: 'guessed' }).expect(401);
  });

  it('the cookie authenticates reads like the token; writes need the console header and this origin', async () => {
    const cookie = await cookieFor(adminToken);
    const read = await t.request.get('/workflows/probe/5').set('Cookie', cookie).expect(200);
    assert.equal(read.body.organizationId, org);
    const before = writes.length;
    await t.request.post('/workflows/probe').set('Cookie', cookie).send({ name: 'csrf' }).expect(403);
    await t.request
      .post('/workflows/probe')
      .set('Cookie', cookie)
      .set(HEADER)
      .set('Origin', 'http://evil.test')
      .send({ name: 'csrf' })
      .expect(403);
    await t.request
      .post('/workflows/probe')
      .set('Cookie', cookie)
      .set(HEADER)
      .set('Sec-Fetch-Site', 'cross-site')
      .send({ name: 'csrf' })
      .expect(403);
    assert.equal(writes.length, before, 'a refused write wrote nothing');
    const ok = await t.request
      .post('/workflows/probe')
      .set('Cookie', cookie)
      .set(HEADER)
      .set('Sec-Fetch-Site', 'same-origin')
      .send({ name: 'ok' });
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    // A bearer token needs no console header (API clients are unaffected).
    await t.request.post('/workflows/probe').set('Authorization', `Bearer ${adminToken}`).send({ name: 'api' }).expect(201);
    await t.request.get('/workflows/probe/5').set('Cookie', 'platform_console_session=forged').expect(401);
  });

  it('lists the permissions the caller holds on an NRN, and signing out clears the cookie', async () => {
    const { userId } = await grantRole(db, org, 'viewer');
    const cookie = await cookieFor(await t.token({ organizationId: org, userId }));
    const res = await t.request.get(`/console/session/permissions?nrn=organization=${org}`).set('Cookie', cookie).expect(200);
    assert.ok(res.body.permissions.includes('workflow:read'));
    assert.ok(!res.body.permissions.includes('workflow:write'));
    await t.request.get(`/console/session/permissions?nrn=organization=${org}`).expect(401);
    await t.request.delete('/console/session').set('Cookie', cookie).expect(403);
    const out = await t.request.delete('/console/session').set('Cookie', cookie).set(HEADER).expect(204);
    assert.match(String(out.headers['set-cookie']?.[0]), /platform_console_session=;.*expires=Thu, 01 Jan 1970/i);
  });
});
