import assert from 'node:assert/strict';
import { createTestApp, type TestApp } from '../support/app';
import { assertDialect, type Family } from '../support/dialects';
import { FAMILY_PREFIXES, probeRoutes } from '../support/probe-routes';

describe('error dialects', () => {
  let t: TestApp;
  let token: string;
  const writes: unknown[] = [];

  before(async () => {
    t = createTestApp({ routes: probeRoutes({ onWrite: (body) => writes.push(body) }), bodyLimitBytes: 2048 });
    token = await t.token({ organizationId: '7' });
  });
  beforeEach(() => (writes.length = 0));

  for (const family of Object.keys(FAMILY_PREFIXES) as Family[]) {
    const prefix = FAMILY_PREFIXES[family];
    describe(`${family} family (${prefix})`, () => {
      it('answers 404 for an unknown route', async () => {
        assertDialect(family, await t.request.get(`${prefix}/1/nothing-here`).set('Authorization', `Bearer ${token}`), 404);
      });

      it('answers 405 with Allow for a wrong method', async () => {
        const response = await t.request.delete(prefix).set('Authorization', `Bearer ${token}`);
        assertDialect(family, response, 405);
        assert.match(response.headers.allow, /POST/);
      });

      it('answers 413 for a body over the limit and writes nothing', async () => {
        const response = await t.request
          .post(prefix)
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json')
          .send(JSON.stringify({ name: 'x'.repeat(4096) }));
        assertDialect(family, response, 413);
        assert.equal(writes.length, 0);
      });

      it('answers 415 for a wrong content type and writes nothing', async () => {
        const response = await t.request
          .post(prefix)
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'text/plain')
          .send('name=x');
        assertDialect(family, response, 415);
        assert.equal(writes.length, 0);
      });

      it('answers 400 for malformed JSON and writes nothing', async () => {
        const response = await t.request
          .post(prefix)
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json')
          .send('{"name": ');
        assertDialect(family, response, 400);
        assert.equal(writes.length, 0);
      });

      it('answers 400 naming each offending field', async () => {
        const response = await t.request.post(prefix).set('Authorization', `Bearer ${token}`).send({ name: '', count: -1, extra: true });
        assertDialect(family, response, 400);
        assert.equal(writes.length, 0);
        if (family === 'problem') {
          const paths = response.body.errors.map((e: { path: string }) => e.path).sort();
          assert.deepEqual(paths, ['/count', '/extra', '/name']);
        } else {
          assert.match(response.body.message, /\/(name|count|extra)/);
        }
      });

      it('answers 400 for a missing body', async () => {
        assertDialect(family, await t.request.post(prefix).set('Authorization', `Bearer ${token}`), 400);
      });

      it('validates path parameters', async () => {
        assertDialect(family, await t.request.get(`${prefix}/abc`).set('Authorization', `Bearer ${token}`), 400);
      });

      it('accepts a valid body as JSON and as YAML', async () => {
        const json = await t.request.post(prefix).set('Authorization', `Bearer ${token}`).send({ name: 'ok', count: 2 });
        assert.equal(json.status, 201);
        const yaml = await t.request
          .post(prefix)
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/yaml')
          .send('name: ok\ncount: 3\n');
        assert.equal(yaml.status, 201);
        assert.deepEqual(yaml.body, { name: 'ok', count: 3 });
      });

      it('answers 500 without internal detail and logs the cause', async () => {
        const response = await t.request.get(`${prefix}/999`).set('Authorization', `Bearer ${token}`);
        assertDialect(family, response, 500);
        assert.doesNotMatch(JSON.stringify(response.body), /hunter2|Error:|at /);
        assert.ok(t.log.lines.some((line) => line.includes('hunter2') && line.includes('"level":50')));
      });
    });
  }

  it('logs client errors at info level at most, without the Authorization header', async () => {
    await t.request.post(FAMILY_PREFIXES.admin).set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send('{');
    const entries = t.log.entries().filter((e) => e.status === 400);
    assert.ok(entries.length > 0);
    for (const entry of entries) assert.ok((entry.level as number) <= 30);
    assert.ok(!t.log.lines.some((line) => line.includes(token)));
  });

  it('gives every response a request id, keeping a sane incoming one', async () => {
    const response = await t.request.get('/health').set('X-Request-Id', 'trace-123');
    assert.equal(response.headers['x-request-id'], 'trace-123');
    const generated = await t.request.get('/health').set('X-Request-Id', 'bad id with spaces');
    assert.match(generated.headers['x-request-id'], /^[0-9a-f-]{36}$/);
  });
});
