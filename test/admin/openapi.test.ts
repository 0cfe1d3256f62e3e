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
    for (const id of ['createUserGrants', 'listAccounts', 'getAccount', 'createServiceSpecification', 'updateServiceAction', 'createProviderSpecification', 'updateProviderSpecification']) {
      assert.ok(operations.includes(id), id);
    }
  });

  it('answers 401 in the admin dialect without a token and unknown admin routes with 404', async () => {
    const ctx = await adminTestApp();
    const org = await newOrg(ctx);
    const res = await ctx.t.request.get('/account/1');
    assert.equal(res.status, 401);
    assert.deepEqual(Object.keys(res.body).sort(), ['code', 'error', 'message', 'statusCode']);
    const missing = await ctx.t.request.get('/account/1/nothing').set(...bearer(org.admin));
    assert.equal(missing.body.statusCode, 404);
  });
});
