/**
 * Problem `type` URIs lead somewhere: every code the problem+json routes can answer with
 * (read from the source, test/support/problem-codes.ts) has its entry in docs/errors.md,
 * no entry is left for a code nothing emits, and the API serves each entry at the URI
 * the problem names (`<PUBLIC_BASE_URL>/errors/<name>`), anonymously.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { problemName } from '../../api/http/dialects';
import { ERROR_DOCS_FILE, parseErrorCatalog } from '../../api/ops/error-pages';
import { createTestApp, type TestApp } from '../support/app';
import { problemCodes } from '../support/problem-codes';
import { FAMILY_PREFIXES, probeRoutes } from '../support/probe-routes';

describe('problem types', function () {
  this.timeout(120_000); // the TypeScript checker reads the API's sources
  let t: TestApp;
  let names: string[];
  const catalog = parseErrorCatalog(readFileSync(ERROR_DOCS_FILE, 'utf8'));

  before(() => {
    t = createTestApp({ routes: probeRoutes() });
    const found = problemCodes();
    assert.deepEqual(found.unresolved, [], 'error codes the checker cannot narrow to literals');
    names = [...new Set([...found.codes].map(problemName))].sort();
    assert.ok(names.length >= 30, `only ${names.length} problem types found: is the scan still right?`);
  });

  it('every problem type the code can answer with has its entry in docs/errors.md, and every entry a code', () => {
    const documented = [...catalog.entries.keys()];
    assert.deepEqual(
      names.filter((name) => !catalog.entries.has(name)),
      [],
      'add a "### <name>" entry under "## Problem types"',
    );
    assert.deepEqual(
      documented.filter((name) => !names.includes(name)),
      [],
      'entries for codes nothing emits',
    );
    assert.deepEqual(documented, [...documented].sort(), 'entries in alphabetical order');
  });

  it('the API serves each entry at the type URI, without a token', async () => {
    for (const name of names) {
      const page = await t.request.get(`/errors/${name}`).expect(200);
      assert.match(page.headers['content-type'], /^text\/html/);
      assert.match(page.headers['content-security-policy'], /default-src 'none'/);
      assert.match(page.text, new RegExp(`<h1><code>${name}</code></h1>`));
      assert.match(page.text, /<strong>\d{3}/, `${name}: its status`);
    }
    const index = await t.request.get('/errors').expect(200);
    for (const name of names) assert.ok(index.text.includes(`href="/errors/${name}"`), name);
    await t.request.get('/errors/no-such-type').expect(404);
  });

  it('a real problem answer names a page that exists', async () => {
    const token = await t.token({ organizationId: '7' });
    const response = await t.request
      .post(FAMILY_PREFIXES.problem)
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send('{"name": ');
    assert.equal(response.status, 400);
    const type = new URL(String(response.body.type));
    assert.equal(type.origin, 'http://api.test'); // PUBLIC_BASE_URL
    assert.equal(type.pathname, '/errors/invalid-json');
    const page = await t.request.get(type.pathname).expect(200);
    assert.match(page.text, /not valid JSON/);
  });
});
