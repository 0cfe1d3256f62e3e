import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { koaPath } from '../../api/http/route';
import { createTestApp, type TestApp } from '../support/app';
import { probeRoutes } from '../support/probe-routes';

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: OpenAPIV3_1.Document;

  before(async () => {
    t = createTestApp({ routes: probeRoutes() });
    const response = await t.request.get('/openapi.json');
    assert.equal(response.status, 200);
    document = response.body;
  });

  it('is a valid OpenAPI 3.1 document', async () => {
    assert.equal(document.openapi, '3.1.0');
    await SwaggerParser.validate(structuredClone(document) as never);
  });

  it('lists every registered route with its method', () => {
    // What the Koa router really answers, read from its layers (not from the declarations).
    const registered = new Set<string>();
    for (const layer of t.app.router.stack) {
      for (const method of layer.methods.filter((m) => m !== 'HEAD')) registered.add(`${method} ${layer.path}`);
    }
    const documented = new Set<string>();
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
        if (item?.[method]) documented.add(`${method.toUpperCase()} ${koaPath(path)}`);
      }
    }
    assert.ok(registered.size >= 10);
    assert.deepEqual([...documented].sort(), [...registered].sort());
  });

  it('documents bodies, parameters and the error responses of each family', () => {
    const write = document.paths?.['/workflows/probe']?.post;
    assert.ok(write?.requestBody);
    const responses = write.responses as Record<string, OpenAPIV3_1.ResponseObject>;
    for (const status of ['201', '400', '401', '413', '415', '500']) assert.ok(responses[status], status);
    assert.deepEqual(Object.keys(responses['400'].content ?? {}), ['application/problem+json']);
    const admin = document.paths?.['/probe']?.post?.responses as Record<string, OpenAPIV3_1.ResponseObject>;
    assert.equal((admin['400'].content?.['application/json']?.schema as { $ref: string }).$ref, '#/components/schemas/AdminError');
    const config = document.paths?.['/workflows/config/probe']?.post?.responses as Record<string, OpenAPIV3_1.ResponseObject>;
    assert.equal((config['400'].content?.['application/json']?.schema as { $ref: string }).$ref, '#/components/schemas/ConfigError');
    assert.ok(config['500'].content?.['application/problem+json']);
    const read = document.paths?.['/probe/{id}']?.get;
    assert.deepEqual(
      read?.parameters?.map((p) => (p as OpenAPIV3_1.ParameterObject).name),
      ['id', 'slow'],
    );
  });

  it('serves a readable reference page and its assets', async () => {
    const page = await t.request.get('/docs');
    assert.equal(page.status, 200);
    assert.match(page.text, /swagger-ui-bundle\.js/);
    const bundle = await t.request.get('/docs/assets/swagger-ui-bundle.js');
    assert.equal(bundle.status, 200);
    assert.ok(bundle.text.length > 100_000);
    assert.equal((await t.request.get('/docs/assets/..%2Fpackage.json')).status, 404);
  });
});
