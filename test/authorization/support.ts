/**
 * Shared set-up for the engine's authorization tests: the engine's routes on the
 * test database (Temporal refuses every start, so no worker is needed), one
 * organization with callers of each catalog role, and fixtures made through the API.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { executionRoutes } from '../../api/executions';
import type { AreaDeps } from '../../api/routes';
import { workflowRoutes } from '../../api/workflows';
import { loadConfig } from '../../config/config';
import { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionStepEntity } from '../../db/entities/execution-step';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { definition as sharedDefinition } from '../support/definitions';
import { grantRole } from '../support/grants';

/** Temporal is never reached except by execute, which it refuses (503: the caller got past authorization). */
const refusing = {
  options: { namespace: 'default' },
  connection: { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn() },
  workflow: { start: () => Promise.reject(new Error('connection refused')) },
} as unknown as Client;

export function engineDeps(db: DataSource): AreaDeps {
  return {
    config: { ...loadConfig(), publicBaseUrl: 'http://api.test' },
    dataSource: db,
    temporal: refusing,
    encryptionKey: randomBytes(32),
  };
}

/** The file's environment (`env` in every test folder): the engine's routes and the test database. */
export interface EngineEnv {
  t: TestApp;
  db: DataSource;
}

/** The organization the tests act in (`org` in every test folder), with a caller of each catalog role. */
export interface EngineOrg {
  /** The organization's id. */
  id: string;
  /** Bearer headers by caller. */
  as: Record<'admin' | 'developer' | 'viewer' | 'none' | 'other', string>;
}

export async function engineAuthz(): Promise<{ env: EngineEnv; org: EngineOrg }> {
  const db = await testDataSource();
  const deps = engineDeps(db);
  const t = createTestApp({ routes: [...workflowRoutes(deps), ...executionRoutes(deps)] });
  const id = newOrganizationId();
  const otherOrg = newOrganizationId();
  const token = async (organizationId: string, role: string | null) =>
    `Bearer ${await t.token({ organizationId, userId: (await grantRole(db, organizationId, role)).userId })}`;
  return {
    env: { t, db },
    org: {
      id,
      as: {
        admin: await token(id, 'admin'),
        developer: await token(id, 'developer'),
        viewer: await token(id, 'viewer'),
        none: await token(id, null),
        other: await token(otherOrg, 'admin'),
      },
    },
  };
}

/** `start ──▶ work` with a manual trigger, keyed `key` (the shared definition builder's). */
export function definition(key: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return sharedDefinition(`Authz ${key}`, { key, ...extra }, 'start');
}

export interface Fixture {
  key: string;
  workflowId: string;
  configId: string;
  executionId: string;
}

/**
 * A workflow (published by the admin) with an alias `prod`, a variable scoped to
 * it, and a finished execution with one step record and its end event, so every
 * read answers 200 and every Temporal-bound write answers 409 (finished).
 */
export async function fixture(env: EngineEnv, org: EngineOrg, extra: Record<string, unknown> = {}): Promise<Fixture> {
  const key = `authz-${randomUUID().slice(0, 8)}`;
  const admin = (req: import('supertest').Test) => req.set('Authorization', org.as.admin);
  const published = await admin(env.t.request.put(`/workflows/definitions/${key}`)).send(definition(key, extra));
  assert.equal(published.status, 201, published.text);
  const workflowId: string = published.body.workflow.id;
  const alias = await admin(env.t.request.put(`/workflows/definitions/${key}/aliases/prod`)).send({ revision: 1 });
  assert.equal(alias.status, 201, alias.text);
  const entry = await admin(env.t.request.post('/workflows/config')).send({ name: 'REGION', value: 'eu', workflow: key });
  assert.equal(entry.status, 201, entry.text);
  const executionId = `exec_authz_${randomUUID().replace(/-/g, '')}`;
  const now = new Date();
  await env.db.getRepository(ExecutionEntity).insert({
    id: executionId,
    organizationId: org.id,
    workflowId,
    workflowKey: key,
    revision: 1,
    alias: 'latest',
    status: 'completed',
    inputs: {},
    outputs: {},
    error: null,
    trigger: { stepId: 'start', source: 'manual', payload: {}, receivedAt: now.toISOString() },
    correlationKey: null,
    idempotencyKey: null,
    parentExecutionId: null,
    temporalRunId: null,
    temporalNamespace: 'default',
    varsUsed: null,
    createdBy: null,
    createdAt: now,
    completedAt: now,
    updatedAt: now,
  });
  await env.db.getRepository(ExecutionStepEntity).insert({
    executionId,
    stepId: 'work',
    run: 1,
    status: 'completed',
    record: { stepId: 'work', status: 'completed' } as never,
    startedAt: now,
    completedAt: now,
  });
  await new ExecutionEventRepository(env.db.manager).insertBatch(executionId, 0, [{ type: 'execution.completed', data: {} }]);
  return { key, workflowId, configId: entry.body.id as string, executionId };
}
