/** Shared set-up for workflow-definition API tests: the app with the workflow routes on the test database. */
import { randomBytes } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { workflowRoutes, type WorkflowRouteOptions } from '../../api/workflows';
import { loadConfig } from '../../config/config';
import type { Limits } from '../../config/limits';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { grantAdmin } from '../support/grants';

/** The file's environment (`env` in every test folder): the app with the workflow routes and the test database. */
export interface WfEnv {
  t: TestApp;
  db: DataSource;
}

/** The organization a test acts as (`org` in every test folder), with its admin as the caller. */
export interface WfOrg {
  /** The organization's id. */
  id: string;
  /** The caller: a user holding the admin role on the organization. */
  userId: string;
  token: string;
  auth: (req: import('supertest').Test) => import('supertest').Test;
  /** A second organization and its token, for isolation checks. */
  other: { org: string; token: string };
}

/** Temporal is only reached by the cron registrar; suites that need it pass a real client. */
const noTemporal = {} as Client;

export async function wfContext(
  options: WorkflowRouteOptions & { temporal?: Client; limits?: Partial<Limits> } = {},
): Promise<{ env: WfEnv; org: WfOrg }> {
  const db = await testDataSource();
  const base = loadConfig();
  const config = { ...base, publicBaseUrl: 'http://api.test', limits: { ...base.limits, ...options.limits } };
  const routes = workflowRoutes(
    { config, dataSource: db, temporal: options.temporal ?? noTemporal, encryptionKey: randomBytes(32) },
    options,
  );
  const t = createTestApp({ routes });
  const org = newOrganizationId();
  const userId = await grantAdmin(db, org);
  const token = await t.token({ organizationId: org, userId });
  const otherOrg = newOrganizationId();
  const otherToken = await t.token({ organizationId: otherOrg, userId: await grantAdmin(db, otherOrg) });
  return {
    env: { t, db },
    org: {
      id: org,
      userId,
      token,
      auth: (req) => req.set('Authorization', `Bearer ${token}`),
      other: { org: otherOrg, token: otherToken },
    },
  };
}

export async function countRows(db: DataSource, table: string, organizationId: string): Promise<number> {
  const column =
    table === 'workflow_revisions' || table === 'workflow_aliases'
      ? 'workflow_id IN (SELECT id FROM workflows WHERE organization_id = $1)'
      : 'organization_id = $1';
  const [row] = await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM ${table} WHERE ${column}`, [organizationId]);
  return row.n;
}

export async function snapshot(db: DataSource, organizationId: string): Promise<Record<string, number>> {
  const tables = ['workflows', 'workflow_revisions', 'workflow_aliases', 'trigger_bindings', 'config_entries'];
  const counts = await Promise.all(tables.map((table) => countRows(db, table, organizationId)));
  return Object.fromEntries(tables.map((table, i) => [table, counts[i]]));
}
