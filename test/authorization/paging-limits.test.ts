/** Every page, limit and offset parameter has a maximum; above it the request answers 400 in its route's dialect. */
import assert from 'node:assert/strict';
import { adminRoutes } from '../../api/admin';
import { MAX_OFFSET, MAX_PAGE_SIZE } from '../../api/admin/schemas/common';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { MAX_PAGE, MAX_PAGE_LIMIT } from '../../api/workflows/schemas';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantAdmin } from '../support/grants';
import { engineDeps } from './support';

describe('paging maxima', () => {
  let t: TestApp;
  let org: string;
  let auth: [string, string];

  before(async () => {
    const db = await testDataSource();
    const deps = engineDeps(db);
    t = createTestApp({ routes: [...adminRoutes({ dataSource: db }), ...workflowRoutes(deps), ...executionRoutes(deps)] });
    org = newOrganizationId();
    auth = ['Authorization', `Bearer ${await t.token({ organizationId: org, userId: await grantAdmin(db, org) })}`];
  });

  const get = (url: string) => t.request.get(url).set(...auth);

  it('engine lists: page and limit up to their maxima, 400 (problem+json) above', async () => {
    for (const path of ['/workflows/definitions', '/workflows/executions']) {
      assert.equal((await get(`${path}?page=${MAX_PAGE}&limit=${MAX_PAGE_LIMIT}`)).status, 200);
      for (const query of [`page=${MAX_PAGE + 1}`, `limit=${MAX_PAGE_LIMIT + 1}`]) {
        const res = await get(`${path}?${query}`);
        assertDialect('problem', res, 400);
        assert.match(res.body.errors[0].path, /^\/query\/(page|limit)$/);
      }
    }
  });

  it('administration lists: offset and limit up to their maxima, 400 (admin dialect) above', async () => {
    const path = `/account?organization_id=${org}`;
    assert.equal((await get(`${path}&offset=${MAX_OFFSET}&limit=${MAX_PAGE_SIZE}`)).status, 200);
    for (const query of [`offset=${MAX_OFFSET + 1}`, `limit=${MAX_PAGE_SIZE + 1}`])
      assertDialect('admin', await get(`${path}&${query}`), 400);
    assertDialect('admin', await get(`/user?organization_id=${org}&limit=${MAX_PAGE_SIZE + 1}`), 400);
  });
});
