import assert from 'node:assert/strict';
import SwaggerParser from '@apidevtools/swagger-parser';
import { wfContext } from './support';

describe('workflows API: OpenAPI', () => {
  it('documents every workflow-definition route in a valid OpenAPI document', async () => {
    const { t } = (await wfContext()).env;
    const document = t.app.openApiDocument() as { paths: Record<string, Record<string, unknown>> };
    await SwaggerParser.validate(structuredClone(document) as never);
    for (const [path, method] of [
      ['/workflows/definitions', 'post'],
      ['/workflows/definitions/{id}', 'put'],
      ['/workflows/definitions/validate', 'post'],
      ['/workflows/definitions/{id}/revisions/{n}', 'get'],
      ['/workflows/definitions/{id}/aliases/{alias}/activate', 'post'],
      ['/workflows/definitions/{id}/aliases/{alias}/deactivate', 'post'],
      ['/workflows/triggers', 'get'],
      ['/workflows/config/{id}', 'patch'],
    ]) {
      assert.ok(document.paths[path]?.[method], `${method.toUpperCase()} ${path} is documented`);
    }
  });
});
