/**
 * Shared set-up for audit trail tests: the execution environment (Temporal, a
 * worker, the test database) with an app that mounts every product route as
 * the service does (buildAreaRoutes: administration, workflows, executions,
 * audit), and reads of the events one request recorded.
 */
import { randomUUID } from 'node:crypto';
import type supertest from 'supertest';
import type { DataSource } from 'typeorm';
import { buildAreaRoutes } from '../../api/routes';
import { createTestApp, type TestApp } from '../support/app';
import { late } from '../support/late';
import { orgContext, startExecEnv, type ExecEnv, type OrgContext } from '../executions-api/support';

/** The file's environment (`env` in every test folder): the execution environment, its app mounting every product route. */
export interface AuditEnv extends ExecEnv {
  /** The app with every product route (its own signing key: tokens come from `token`). */
  t: TestApp;
}

export interface AuditOrg extends OrgContext {
  /** Sends `req` as the caller (the organization's admin). */
  as: (req: supertest.Test) => supertest.Test;
}

export interface AuditEventRow {
  id: string;
  organization_id: string;
  occurred_at: Date;
  actor_kind: string;
  actor_id: string;
  action: string;
  target_nrn: string | null;
  target_id: string | null;
  request_id: string;
  client_request_id: string | null;
  client_address: string | null;
  replica: string;
  details: Record<string, unknown>;
}

/** Mocha hooks: the environment once per file, a fresh organization (with its admin) before each test. */
export function useAuditEnv(): { env: AuditEnv; org: AuditOrg } {
  const env = late<AuditEnv>('the audit environment');
  const org = late<AuditOrg>('the organization');
  before(async () => {
    const exec = await startExecEnv();
    env.set({ ...exec, t: createTestApp({ routes: buildAreaRoutes(exec.deps) }) });
  });
  beforeEach(async () => {
    const caller = await orgContext(env.value);
    const token = await env.value.t.token({ organizationId: caller.id, userId: caller.userId });
    org.set({
      ...caller,
      token,
      as: (req) => req.set('Authorization', `Bearer ${token}`),
      auth: (req) => req.set('Authorization', `Bearer ${token}`),
    });
  });
  after(async () => {
    if (env.isSet) await env.value.stop();
  });
  return { env: env.value, org: org.value };
}

/** A fresh request id: the events a request recorded are found by it. */
export const newRequestId = (): string => `audit-test-${randomUUID()}`;

export async function eventsOfRequest(db: DataSource, requestId: string): Promise<AuditEventRow[]> {
  // The id the test sent as X-Request-Id is the client's, recorded beside the server's own.
  return db.query(`SELECT * FROM audit_events WHERE client_request_id = $1 ORDER BY id`, [requestId]);
}

/** Polls until `done` holds for the execution (through the app's read route). */
export async function executionWhere(
  env: AuditEnv,
  org: AuditOrg,
  id: string,
  done: (body: Record<string, unknown>) => boolean,
  path = '',
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < 300; i++) {
    const res = await org.as(env.t.request.get(`/workflows/executions/${id}${path}`));
    last = res.body as Record<string, unknown>;
    if (res.status === 200 && done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met for ${id}${path}: ${JSON.stringify(last)}`);
}
