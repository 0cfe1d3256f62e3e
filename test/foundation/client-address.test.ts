/**
 * api/http/client-address.ts: the address a request came from, believing
 * `X-Forwarded-For` only as far as trusted proxies (TRUSTED_PROXIES) appended it;
 * and the API reference page's security headers (as the console's).
 */
import assert from 'node:assert/strict';
import { clientAddress, trustedProxies } from '../../api/http/client-address';
import { createTestApp } from '../support/app';

describe('client address through trusted proxies', () => {
  const none = trustedProxies([]);
  const proxies = trustedProxies(['10.0.0.0/8', '::1']);

  it('is the socket peer when no proxy is trusted, whatever the header says', () => {
    assert.equal(clientAddress('198.51.100.7', '203.0.113.9', none), '198.51.100.7');
    assert.equal(clientAddress('::ffff:127.0.0.1', '203.0.113.9', none), '127.0.0.1');
    assert.equal(clientAddress(undefined, '', none), undefined);
  });

  it('reads X-Forwarded-For from the right, through trusted proxies only', () => {
    assert.equal(clientAddress('10.0.0.2', '203.0.113.9', proxies), '203.0.113.9');
    // A client's own forged entry sits left of what the proxies appended, and is not reached.
    assert.equal(clientAddress('10.0.0.2', '192.0.2.66, 203.0.113.9, 10.1.2.3', proxies), '203.0.113.9');
    assert.equal(clientAddress('::1', '2001:db8::5', proxies), '2001:db8::5');
    // An untrusted peer's header is not believed; a malformed hop ends the chain.
    assert.equal(clientAddress('198.51.100.7', '203.0.113.9', proxies), '198.51.100.7');
    assert.equal(clientAddress('10.0.0.2', 'not-an-ip', proxies), '10.0.0.2');
  });
});

describe('the API reference page', () => {
  it("is served with the console's security headers: a content security policy, nosniff, no framing", async () => {
    const t = createTestApp();
    for (const path of ['/docs', '/docs/assets/docs-init.js', '/docs/assets/swagger-ui.css']) {
      const res = await t.request.get(path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers['content-security-policy'], /default-src 'none'/, path);
      assert.match(res.headers['content-security-policy'], /frame-ancestors 'none'/, path);
      assert.match(res.headers['content-security-policy'], /script-src 'self'(;|$)/, path);
      assert.equal(res.headers['x-content-type-options'], 'nosniff', path);
      assert.equal(res.headers['x-frame-options'], 'DENY', path);
    }
  });
});
