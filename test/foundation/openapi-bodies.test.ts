/**
 * The service's OpenAPI document describes every body it takes and answers,
 * and passes Redocly's recommended rules (`npm run lint:openapi`).
 */
import assert from 'node:assert/strict';
import { serviceOpenApiDocument } from '../../startup/openapi-document';
import { runScript } from '../support/process';

type Schema = Record<string, unknown>;
type Operation = {
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
};

/**
 * Why a body's schema says nothing, or undefined when it describes the body: a
 * reference, a type (an object with its properties, or a map with a schema for
 * its values), each branch of a union described, or a description, which is how
 * a deliberately free-form body (a webhook's payload) says so.
 */
function undescribed(schema: Schema | undefined): string | undefined {
  if (schema === undefined) return 'no schema';
  if (schema.$ref !== undefined || typeof schema.description === 'string') return undefined;
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[key])) return (schema[key] as Schema[]).map(undescribed).find((why) => why !== undefined);
  if (schema.type === undefined && schema.const === undefined && schema.enum === undefined) return 'no type, properties or description';
  if (schema.type === 'object') {
    const properties = Object.keys((schema.properties as Schema | undefined) ?? {});
    const values = typeof schema.additionalProperties === 'object' || schema.patternProperties !== undefined;
    if (properties.length === 0 && !values) return 'an object without properties or a description';
  }
  return undefined;
}

function problemsOf(document: { paths: Record<string, Record<string, Operation>> }): string[] {
  const problems: string[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
        const why = undescribed(media.schema);
        if (why) problems.push(`${at} request ${type}: ${why}`);
      }
      for (const [status, response] of Object.entries(operation.responses))
        for (const [type, media] of Object.entries(response.content ?? {})) {
          const why = undescribed(media.schema);
          if (why) problems.push(`${at} ${status} ${type}: ${why}`);
        }
    }
  }
  return problems;
}

describe('OpenAPI document: bodies and lint', function () {
  this.timeout(120_000);

  it('tells an undescribed body from a described one', () => {
    assert.equal(
      undescribed({ type: 'object', properties: {}, additionalProperties: true }),
      'an object without properties or a description',
    );
    assert.equal(undescribed({}), 'no type, properties or description');
    assert.equal(undescribed(undefined), 'no schema');
    assert.equal(undescribed({ anyOf: [{ type: 'string' }, {}] }), 'no type, properties or description');
    assert.equal(undescribed({ type: 'object', properties: { a: { type: 'string' } } }), undefined);
    assert.equal(undescribed({ type: 'object', patternProperties: { '^(.*)$': {} } }), undefined);
    assert.equal(undescribed({ description: 'free-form: any JSON the sender posts' }), undefined);
    assert.equal(undescribed({ type: 'string' }), undefined);
  });

  it('describes every request and response body of every operation (free-form ones say so)', () => {
    const document = serviceOpenApiDocument() as { paths: Record<string, Record<string, Operation>> };
    assert.ok(Object.keys(document.paths).length > 50);
    assert.deepEqual(problemsOf(document), []);
    // The config entry write names its fields (it was an empty object).
    const write = document.paths['/workflows/config'].post.requestBody?.content['application/json'].schema as {
      properties: Record<string, unknown>;
    };
    assert.deepEqual(Object.keys(write.properties).sort(), ['name', 'nrn', 'path', 'secret', 'value', 'workflow']);
  });

  it('uses one parameter name for one path segment (the upsert by key is /workflows/definitions/{id})', () => {
    const document = serviceOpenApiDocument() as { paths: Record<string, Record<string, Operation>> };
    const templates = new Map<string, string>();
    for (const path of Object.keys(document.paths)) {
      const shape = path.replace(/\{[^}]+\}/g, '{}');
      assert.ok(!templates.has(shape), `${path} and ${templates.get(shape)} are one path under two names`);
      templates.set(shape, path);
    }
    assert.ok(document.paths['/workflows/definitions/{id}'].put);
  });

  it('passes Redocly recommended rules offline (npm run lint:openapi: no errors)', async () => {
    const result = await runScript('bin/lint-openapi.ts', { timeoutMs: 90_000 });
    const output = result.stdout + result.stderr;
    assert.equal(result.code, 0, output);
    assert.doesNotMatch(output, /\berror\b +[a-z-]+ /);
    assert.match(output, /Your API description is valid/);
  });
});
