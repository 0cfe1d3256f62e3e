/** Assertions on the three error dialects of the API contract. */
import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import { FAMILY_PREFIXES } from './probe-routes';

export type Family = keyof typeof FAMILY_PREFIXES;

/** Asserts the body is in the dialect of its route family, with the given status. */
export function assertDialect(family: Family, response: Response, status: number): void {
  assert.equal(response.status, status, JSON.stringify(response.body));
  if (family === 'problem' || (family === 'config' && status >= 500)) {
    assert.match(response.headers['content-type'], /^application\/problem\+json/);
    assert.equal(response.body.status, status);
    assert.equal(typeof response.body.title, 'string');
    assert.equal(typeof response.body.detail, 'string');
    assert.match(response.body.type, /^http:\/\/api\.test\/errors\/[a-z0-9-]+$/);
    assert.equal(response.body.instance, new URL(response.request.url).pathname);
  } else if (family === 'config') {
    assert.match(response.headers['content-type'], /^application\/json/);
    assert.deepEqual(Object.keys(response.body).sort(), ['error', 'message']);
    assert.match(response.body.error, /^[a-z_]+$/);
  } else {
    assert.match(response.headers['content-type'], /^application\/json/);
    assert.equal(response.body.statusCode, status);
    assert.equal(typeof response.body.error, 'string');
    assert.equal(typeof response.body.message, 'string');
    assert.equal(typeof response.body.code, 'string');
  }
}
