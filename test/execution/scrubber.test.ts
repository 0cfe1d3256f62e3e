import assert from 'node:assert/strict';
import fc from 'fast-check';
import { REDACTED, Scrubber } from '../../activities/secrets/scrubber';

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
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 40 }),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20 }),
        (secret, prefix, suffix) => {
          const s = new Scrubber([secret]);
          for (const form of [
            secret,
            Buffer.from(secret).toString('base64'),
            encodeURIComponent(secret),
            JSON.stringify(secret).slice(1, -1),
          ]) {
            if (form.length < 4 || (prefix + REDACTED + suffix).includes(form)) continue; // the marker itself could spell it
            assert.ok(!s.text(prefix + form + suffix).includes(form));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
