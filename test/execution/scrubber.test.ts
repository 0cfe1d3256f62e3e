import assert from 'node:assert/strict';
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import { REDACTED, Scrubber } from '../../activities/secrets/scrubber';

/** Each character in its own lower or upper case (how a URL host or code changes the case of a secret). */
const perCharacter = (text: string, change: (char: string) => string): string =>
  [...text].map((char) => (change(char).length === char.length ? change(char) : char)).join('');
/** Whether `scrubbed` still holds `form` (a form of four characters or more that the marker itself does not spell). */
const leaks = (scrubbed: string, form: string, context: string): boolean =>
  form.length >= 4 && !context.includes(form) && scrubbed.includes(form);

describe('secret scrubber', () => {
  const canary = 'canary-s3cr3t/value+"quoted"';
  const scrubber = new Scrubber([canary]);

  it('redacts plain, base64, URL-encoded and JSON-escaped forms', () => {
    const forms = [
      canary,
      Buffer.from(canary).toString('base64'),
      Buffer.from(canary).toString('base64url'),
      encodeURIComponent(canary),
      JSON.stringify(canary).slice(1, -1),
    ];
    for (const form of forms) assert.equal(scrubber.text(`before ${form} after`), `before ${REDACTED} after`, form);
  });

  describe('the forms a secret takes in URLs, headers and JSON', () => {
    const redacts = (secret: string, form: string) => {
      const scrubbed = new Scrubber([secret]).text(`before ${form} after`);
      assert.equal(scrubbed, `before ${REDACTED} after`, `${JSON.stringify(form)} of ${JSON.stringify(secret)}`);
    };

    it('lower-cased (a URL host) and upper-cased', () => {
      const secret = 'Tok3n-MixedCase-Ünïcode';
      redacts(secret, secret.toLowerCase());
      redacts(secret, secret.toUpperCase());
      const host = new URL(`https://Tok3nMixedCase.example.com/`).hostname;
      assert.equal(new Scrubber(['Tok3nMixedCase']).text(`getaddrinfo ENOTFOUND ${host}`), `getaddrinfo ENOTFOUND ${REDACTED}.example.com`);
    });

    it('percent-encoded: encodeURIComponent, encodeURI, a URL path, query and user info, form encoding, either hex case', () => {
      const secret = 'p@ss word/with:odd&chars=é+%';
      redacts(secret, encodeURIComponent(secret));
      redacts(secret, encodeURIComponent(secret).toLowerCase());
      redacts(secret, encodeURI(secret));
      redacts(secret, new URLSearchParams({ q: secret }).toString().slice(2));
      const url = new URL('https://example.com/');
      url.pathname = `/${secret}`;
      url.search = `?q=${secret}`;
      url.username = secret;
      const scrubbed = new Scrubber([secret]).text(url.href);
      assert.equal(scrubbed, `https://${REDACTED}@example.com/${REDACTED}?q=${REDACTED}`, url.href);
    });

    it('the IDNA (punycode) form of a secret used as a host label', () => {
      const secret = 'séçrét-hôst';
      const host = new URL(`https://${secret}.example.com/`).hostname;
      assert.match(host, /^xn--/);
      assert.equal(domainToASCII(secret), host.replace('.example.com', ''));
      assert.equal(new Scrubber([secret]).text(`no route to ${host}`), `no route to ${REDACTED}.example.com`);
    });

    it('the forms the URL parser makes: TAB, LF and CR removed, `\\` made `/` in a path, in a path, query, host and user info', () => {
      for (const secret of ['tab\tin-the-middle', 'line\nfeed-s3cret', 'back\\slash-s3cret', 'all\t\r\nof\\them']) {
        const url = new URL(`https://example.com/p/${secret}/x?q=${secret}&r=${encodeURIComponent(secret)}#${secret}`);
        const scrubbed = new Scrubber([secret]).text(url.href);
        assert.equal(scrubbed.includes(REDACTED), true, scrubbed);
        for (const part of [url.pathname.split('/')[2], url.searchParams.get('q')!, url.hash.slice(1)]) {
          assert.ok(part.length >= 4 && url.href.includes(part));
          assert.ok(!scrubbed.includes(part), `${JSON.stringify(part)} of ${JSON.stringify(secret)} in ${scrubbed}`);
        }
        const user = new URL('https://example.com/');
        user.password = secret;
        assert.ok(!new Scrubber([secret]).text(user.href).includes(user.password), user.href);
      }
      const host = new URL('https://tab\tHost-S3cret.example.com/').hostname;
      assert.equal(new Scrubber(['tab\tHost-S3cret']).text(`to ${host}`), `to ${REDACTED}.example.com`);
    });

    it('derives no partial form: a secret that is not a whole host does not redact its first label elsewhere', () => {
      for (const secret of ['first\\rest-of-it', 'first/rest', 'first?rest', 'first#rest', 'first@rest', 'first:8080']) {
        const scrubber = new Scrubber([secret]);
        assert.equal(scrubber.text('the first step, firstly'), 'the first step, firstly', JSON.stringify(secret));
        assert.equal(scrubber.text(`x ${secret} y`), `x ${REDACTED} y`);
      }
    });

    it('a long secret (64 KB) compiles and is redacted in its plain, URL, JSON and base64 forms', () => {
      const secret = Array.from({ length: 4096 }, (_, i) => `k${i % 10}é/"`)
        .join('')
        .slice(0, 65_536);
      const scrubber = new Scrubber([secret, `${secret}-2`]);
      for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1), Buffer.from(secret).toString('base64')])
        assert.equal(scrubber.text(`a ${form} b`), `a ${REDACTED} b`);
      // Many secrets of the longest per-character kind: one expression within its budget, the rest exact.
      const many = Array.from({ length: 40 }, (_, i) => `${i}-${'é"/ \\'.repeat(250)}`);
      const all = new Scrubber(many);
      for (const secret of many) {
        assert.equal(all.text(`a ${secret} b`), `a ${REDACTED} b`);
        assert.equal(all.text(`a ${encodeURIComponent(secret)} b`), `a ${REDACTED} b`);
      }
    });

    it('JSON-escaped: short escapes, and \\u escapes of any character other than letters and digits', () => {
      const secret = 'quote"back\\slash/new\nline<tag>&é';
      redacts(secret, JSON.stringify(secret).slice(1, -1));
      redacts(secret, JSON.stringify(secret).slice(1, -1).replace(/</g, '\\u003c').replace(/>/g, '\\u003E').replace(/&/g, '\\u0026'));
      redacts(secret, JSON.stringify(secret).slice(1, -1).replace(/é/g, '\\u00e9').replace(/\//g, '\\/'));
    });

    it('base64 of Basic credentials and other tokens built around it, at every alignment, in both alphabets', () => {
      const secret = 'b4sic-p4ss?>~';
      for (const user of ['', 'a', 'ab', 'abc', 'user', 'admin']) {
        for (const encoding of ['base64', 'base64url'] as const) {
          const header = `Basic ${Buffer.from(`${user}:${secret}`).toString(encoding)}`;
          const scrubbed = new Scrubber([secret]).text(header);
          assert.notEqual(scrubbed, header, header);
          assert.ok(!Buffer.from(scrubbed.slice(6), encoding).toString('utf8').includes(secret.slice(0, 6)), `${header} → ${scrubbed}`);
        }
      }
    });
  });

  it('redacts deep inside values, keys included, without touching the original', () => {
    const value = { headers: { Authorization: `Bearer ${canary}` }, list: [canary, 1, null], [canary]: true };
    const scrubbed = scrubber.value(value);
    assert.ok(!JSON.stringify(scrubbed).includes(canary));
    assert.ok(!JSON.stringify(scrubbed).includes(JSON.stringify(canary).slice(1, -1)));
    assert.equal(value.headers.Authorization, `Bearer ${canary}`);
    assert.deepEqual(scrubbed.list, [REDACTED, 1, null]);
  });

  it('leaves text alone when there is nothing to redact, and ignores very short values', () => {
    assert.equal(new Scrubber([]).text('abc'), 'abc');
    assert.equal(new Scrubber(['ab']).text('about'), 'about');
  });

  it('never lets a secret through in any of its forms (property)', () => {
    const secrets = fc.oneof(
      fc.string({ unit: 'grapheme-ascii', minLength: 4, maxLength: 40 }),
      fc.string({ unit: 'grapheme', minLength: 4, maxLength: 24 }),
    );
    fc.assert(
      fc.property(secrets, fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), (secret, prefix, suffix) => {
        const s = new Scrubber([secret]);
        const context = prefix + REDACTED + suffix;
        const forms = [
          secret,
          perCharacter(secret, (char) => char.toLowerCase()),
          perCharacter(secret, (char) => char.toUpperCase()),
          encodeURIComponent(secret),
          encodeURI(secret),
          new URLSearchParams({ q: secret }).toString().slice(2),
          JSON.stringify(secret).slice(1, -1),
          Buffer.from(secret).toString('base64'),
          Buffer.from(secret).toString('base64url'),
        ];
        // A secret holding a character that ends a host is never a whole host: its domainToASCII is a part of it.
        if (!/[%/\\?#@:]/.test(secret) && domainToASCII(secret) !== '') forms.push(domainToASCII(secret));
        for (const form of forms) assert.ok(!leaks(s.text(prefix + form + suffix), form, context), JSON.stringify(form));
        // Inside longer base64 (Basic credentials): what remains decodes to no part of the secret's middle.
        const encoded = Buffer.from(`${prefix}:${secret}${suffix}`).toString('base64');
        const middle = secret.slice(1, -1);
        if (Buffer.byteLength(middle) >= 4) assert.ok(!Buffer.from(s.text(encoded), 'base64').toString('utf8').includes(middle), encoded);
      }),
      { numRuns: 300 },
    );
  });
});
