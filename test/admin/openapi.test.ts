import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { OpenAPIV3_1 } from 'openapi-types';
import { adminTestApp, bearer, newOrg } from './support';

describe('admin: OpenAPI and dialect', () => {
  it('documents every administration route in a valid OpenAPI 3.1 document', async () => {
    const { t } = await adminTestApp();
    const response = await t.request.get('/openapi.json');
    const document = response.body as OpenAPIV3_1.Document;
    await SwaggerParser.validate(structuredClone(document) as never);
    const operations = Object.values(document.paths ?? {}).flatMap((item) =>
      (['get', 'post', 'patch', 'delete'] as const).flatMap((m) => (item?.[m]?.operationId ? [item[m].operationId] : [])),
    );
    for (const id of [
      'createUserGrants',
      'listAccounts',
      'getAccount',
      'createServiceSpecification',
      'updateServiceAction',
      'createProviderSpecification',
      'updateProviderSpecification',
    ]) {
      assert.ok(operations.includes(id), id);
    }
  });

  it('answers 401 in the admin dialect without a token and unknown admin routes with 404', async () => {
    const env = await adminTestApp();
    const org = await newOrg(env);
    const res = await env.t.request.get('/account/1');
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'message', 'statusCode']);
    const missing = await env.t.request.get('/account/1/nothing').set(...bearer(org.admin));
    assert.equal(missing.body.statusCode, 404);
  });

  it('refuses malformed path and query parameters with 400 in the admin dialect', async () => {
    const env = await adminTestApp();
    const org = await newOrg(env);
    for (const path of [
      '/account/abc',
      '/account/0',
      '/account/1?show_deleted=maybe',
      '/user/-1',
      '/service/not-a-uuid',
      '/service/00000000-0000-4000-8000-000000000000/action/1',
      '/service_specification/12',
      '/provider_specification/zz',
      '/service_specification?type=other',
      '/provider_specification?category=databases',
    ]) {
      const res = await env.t.request.get(path).set(...bearer(org.admin));
      assert.equal(res.status, 400, path);
      assert.deepEqual(
        [res.body.statusCode, res.body.code, typeof res.body.error, typeof res.body.message],
        [400, 'validation_failed', 'string', 'string'],
        path,
      );
    }
  });
});
