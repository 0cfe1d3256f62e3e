/** Shared set-up for administration tests: the app with the admin routes, and organizations with an admin. */
import assert from 'node:assert/strict';
import type { Response } from 'supertest';
import type { DataSource } from 'typeorm';
import { bootstrapAdmins } from '../../api/admin/bootstrap';
import { adminRoutes } from '../../api/admin';
import { createTestApp, type TestApp } from '../support/app';
import { testDataSource, newOrganizationId } from '../support/database';
import { assertDialect } from '../support/dialects';
import { late } from '../support/late';
import { captureLogger } from '../support/logger';
import { newUserId } from '../support/grants';

/** The file's environment (`env` in every test folder): the app with the admin routes and the test database. */
export interface AdminEnv {
  t: TestApp;
  db: DataSource;
}

export async function adminTestApp(): Promise<AdminEnv> {
  const db = await testDataSource();
  return { t: createTestApp({ routes: adminRoutes({ dataSource: db }) }), db };
}

export { newUserId };

/** The organization a test acts in (`org` in every test folder), with its admin. */
export interface Org {
  id: string;
  adminId: number;
  /** Token of the organization's admin. */
  admin: string;
  token(userId: number, userType?: 'person' | 'service_account'): Promise<string>;
}

export async function newOrg(env: AdminEnv): Promise<Org> {
  const id = newOrganizationId();
  const adminId = newUserId();
  await bootstrapAdmins(env.db, [{ userId: adminId, organizationId: Number(id) }], captureLogger().logger, { defaultFirstAdmin: false });
  const token = (userId: number, userType: 'person' | 'service_account' = 'person') =>
    env.t.token({ userId: String(userId), organizationId: id, userType });
  return { id, adminId, admin: await token(adminId), token };
}

/**
 * The mocha hooks of an administration file: `before` creates the app, `beforeEach`
 * a fresh organization with its admin. Call it inside `describe`; `env` and `org`
 * are filled by those hooks.
 */
export function useAdminApp(): { env: AdminEnv; org: Org } {
  const env = late<AdminEnv>('the admin test app');
  const org = late<Org>('the organization');
  before(async () => env.set(await adminTestApp()));
  beforeEach(async () => org.set(await newOrg(env.value)));
  return { env: env.value, org: org.value };
}

/** A user of the organization holding `role` on `nrn` (default: the whole organization), and its token. */
export async function userWithRole(
  env: AdminEnv,
  org: Org,
  role: string,
  nrn = `organization=${org.id}`,
  type: 'person' | 'service_account' = 'person',
) {
  const id = newUserId();
  const created = await env.t.request
    .post('/user')
    .set('Authorization', `Bearer ${org.admin}`)
    .send({ id, organization_id: Number(org.id), type });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  if (role !== 'none') {
    const granted = await env.t.request
      .post(`/user/${id}/grant`)
      .set('Authorization', `Bearer ${org.admin}`)
      .send([{ nrn, role_slug: role }]);
    assert.equal(granted.status, 201, JSON.stringify(granted.body));
  }
  return { id, token: await org.token(id, type) };
}

/** Asserts an admin-dialect error with the given status and code. */
export function assertAdminError(response: Response, status: number, code: string): void {
  assertDialect('admin', response, status);
  assert.equal(response.body.code, code, JSON.stringify(response.body));
}

export const bearer = (token: string): [string, string] => ['Authorization', `Bearer ${token}`];
