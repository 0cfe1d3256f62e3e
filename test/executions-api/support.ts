/**
 * Shared set-up for execution API tests: the app with the definition and
 * execution routes on the test database, one Temporal test environment (the
 * resolved server: the CLI dev server in CI, or the stand-in) and one real Worker with the REAL activities per test file, on
 * the file's own task queue.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { DataSource } from 'typeorm';
import type supertest from 'supertest';
import { createActivities } from '../../activities';
import type { SignInCodes } from '../../api/console/sign-in-codes';
import { workflowReach } from '../../api/access/workflow-reach';
import { mintToken } from '../../api/http/auth';
import { createServiceTokens } from '../../api/http/service-tokens';
import { oidcSignIn } from '../../startup/console';
import { CONSOLE_ASSETS_DIR, ensureConsoleBuilt } from '../../startup/console-build';
import { adminRoutes } from '../../api/admin';
import { executionRoutes } from '../../api/executions';
import type { AreaDeps } from '../../api/routes';
import { workflowRoutes } from '../../api/workflows';
import { CODE_EXEC_DEFAULTS, loadConfig, type CodeExecSettings } from '../../config/config';
import { CodeExecPool } from '../../activities/plugins/code-exec-pool';
import type { Limits } from '../../config/limits';
import type { OidcSettings } from '../../config/oidc';
import type { OperatorPlugins } from '../../activities/plugins/operator/load-plugins';
import { EXECUTION_WORKER_TUNING, workflowBundle } from '../../worker/worker';
import { createTestApp, type TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { grantAdmin } from '../support/grants';
import { late } from '../support/late';
import { TEST_EGRESS } from '../support/egress';
import { captureLogger, type CapturedLogger } from '../support/logger';
import { createTestTemporalEnv } from '../support/temporal';

export const TEMPORAL_UI = 'http://temporal-ui.test';

/** A file's environment (`env` in every test folder): the app, the database, Temporal and the worker's settings. */
export interface ExecEnv {
  /** The Temporal test environment (its client, native connection and namespace). */
  temporal: TestWorkflowEnvironment;
  /** Organizations created through orgContext: their executions' histories are replayed on stop. */
  organizations: string[];
  db: DataSource;
  taskQueue: string;
  encryptionKey: Buffer;
  t: TestApp;
  /** The limits the API and the worker run with (the defaults, with the file's overrides). */
  limits: Limits;
  /** What the worker's activities log (such as the names of the secrets each step decrypted). */
  workerLog: CapturedLogger;
  /** What the app's routes were built from (a test builds a second app on the same services from it). */
  deps: AreaDeps;
  stop(): Promise<void>;
}

/** The organization a test acts as (`org` in every test folder), with its admin as the caller. */
export interface OrgContext {
  /** The organization's id. */
  id: string;
  /** The caller: a user holding the admin role on the organization. */
  userId: string;
  token: string;
  auth: (req: supertest.Test) => supertest.Test;
  /** A token of another organization, for isolation checks. */
  otherAuth: (req: supertest.Test) => supertest.Test;
}

/** Starts Temporal, the worker and the app; `withWorker: false` leaves executions unpicked (they stay running). */
export interface ExecEnvOptions {
  withWorker?: boolean;
  limits?: Partial<Limits>;
  /** A code-exec pool of its own with these settings over the defaults (default: the process's shared pool). */
  codeExec?: Partial<CodeExecSettings>;
  /** Operator plugins (as PLUGINS loads them) the worker runs and the API validates and lists. */
  operatorPlugins?: OperatorPlugins;
  /** Serve the web console (built first when its sources changed), with these sign-in codes for one-time links. */
  console?: { signInCodes?: SignInCodes; oidc?: OidcSettings };
  /** The worker's workflow bundle with stack traces inside runs (WORKFLOW_STACK_TRACES=true); default off, as the service runs. */
  stackTraces?: boolean;
  /** Start runs through a client on the worker's connection with eager workflow start, as `npm start` does; default true when a worker runs. */
  eagerStarts?: boolean;
  /** A Temporal environment the caller started (a bench starts the dev server as `npm start` does); default createTestTemporalEnv('local'). stop() tears it down. */
  temporal?: TestWorkflowEnvironment;
}

export async function startExecEnv(options: ExecEnvOptions = {}): Promise<ExecEnv> {
  const db = await testDataSource();
  const temporal = options.temporal ?? (await createTestTemporalEnv('local'));
  const taskQueue = `exec-api-${randomUUID().slice(0, 8)}`;
  const encryptionKey = randomBytes(32);
  const namespace = temporal.namespace ?? 'default';
  const workerLog = captureLogger('info');
  const limits: Limits = { ...loadConfig().limits, ...options.limits };
  const codeExecPool = options.codeExec ? new CodeExecPool({ ...CODE_EXEC_DEFAULTS, ...options.codeExec }) : undefined;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  if (options.withWorker !== false) {
    worker = await Worker.create({
      connection: temporal.nativeConnection,
      namespace,
      taskQueue,
      workflowBundle: await workflowBundle([], options.stackTraces),
      ...EXECUTION_WORKER_TUNING,
      activities: createActivities({
        dataSource: db,
        logger: workerLog.logger,
        encryptionKey,
        temporalNamespace: namespace,
        egress: TEST_EGRESS,
        codeExecPool,
        limits,
        recoveryStarts: { temporal: temporal.client, taskQueue },
        operatorPlugins: options.operatorPlugins,
        reach: workflowReach,
      }),
    });
    running = worker.run();
  }
  const deps: AreaDeps = {
    config: {
      ...loadConfig(),
      publicBaseUrl: 'http://api.test',
      temporalTaskQueue: taskQueue,
      temporalNamespace: namespace,
      temporalUiUrl: TEMPORAL_UI,
      limits,
    },
    dataSource: db,
    temporal: temporal.client,
    ...(worker && options.eagerStarts !== false ? { eagerStarts: new Client({ connection: temporal.nativeConnection, namespace }) } : {}),
    encryptionKey,
    plugins: options.operatorPlugins?.catalog,
  };
  if (options.console) await ensureConsoleBuilt();
  const secret = randomBytes(32);
  const serviceTokens = createServiceTokens(randomBytes(32));
  const signInCodes = options.console?.signInCodes;
  const t = createTestApp({
    // The console is a client of the whole API: its administration pages call the admin routes.
    routes: [...workflowRoutes(deps), ...executionRoutes(deps), ...(options.console ? adminRoutes({ dataSource: db }) : [])],
    secret,
    serviceTokens,
    console: options.console && {
      assetsDir: CONSOLE_ASSETS_DIR,
      dataSource: db,
      ...(signInCodes
        ? { signIn: { codes: signInCodes, mint: (identity) => mintToken({ ...identity, userType: 'person', secret }) } }
        : {}),
      // Built as start-up builds it (the settings object is read on use: a test may fill in ports once they are known).
      ...(options.console.oidc ? { oidc: oidcSignIn(options.console.oidc, encryptionKey, serviceTokens) } : {}),
    },
  });
  const organizations: string[] = [];
  return {
    temporal,
    db,
    taskQueue,
    encryptionKey,
    t,
    workerLog,
    limits,
    deps,
    organizations,
    async stop() {
      worker?.shutdown();
      await running;
      await codeExecPool?.close();
      try {
        await assertHistoriesReplay(temporal, db, organizations);
      } finally {
        await temporal.teardown();
      }
    },
  };
}

/** Every history the file's executions produced replays against the workflow bundle without non-determinism. */
async function assertHistoriesReplay(temporal: TestWorkflowEnvironment, db: DataSource, organizations: string[]): Promise<void> {
  if (organizations.length === 0) return;
  const rows = await db.query<Array<{ id: string }>>(
    `SELECT id FROM executions WHERE organization_id = ANY($1::text[]) AND temporal_run_id IS NOT NULL`,
    [organizations],
  );
  const histories = await Promise.all(
    rows.map(async ({ id }) => ({ workflowId: id, history: await temporal.client.workflow.getHandle(id).fetchHistory() })),
  );
  for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
    if (result.error) throw new Error(`the history of ${result.workflowId} does not replay: ${String(result.error)}`);
  }
}

/** Another worker on the file's task queue with the real activities (for tests that stop or replace workers). */
export async function createWorker(env: ExecEnv): Promise<Worker> {
  return Worker.create({
    connection: env.temporal.nativeConnection,
    namespace: env.temporal.namespace ?? 'default',
    taskQueue: env.taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      dataSource: env.db,
      logger: captureLogger('info').logger,
      encryptionKey: env.encryptionKey,
      temporalNamespace: env.temporal.namespace ?? 'default',
      egress: TEST_EGRESS,
      limits: env.limits,
      reach: workflowReach,
    }),
  });
}

export async function orgContext(env: ExecEnv): Promise<OrgContext> {
  const id = newOrganizationId();
  env.organizations.push(id);
  const userId = await grantAdmin(env.db, id);
  const token = await env.t.token({ organizationId: id, userId });
  const otherOrg = newOrganizationId();
  const otherToken = await env.t.token({ organizationId: otherOrg, userId: await grantAdmin(env.db, otherOrg) });
  return {
    id,
    userId,
    token,
    auth: (req) => req.set('Authorization', `Bearer ${token}`),
    otherAuth: (req) => req.set('Authorization', `Bearer ${otherToken}`),
  };
}

/**
 * The mocha hooks every execution API file needs: `before` starts the environment
 * (startExecEnv) and makes the organization (once for the file, or before each test
 * with `org: 'each'`), `after` stops it (replaying every history). Call it inside
 * `describe`: `const { env, org } = useExecEnv()`; both are filled by those hooks.
 */
export function useExecEnv(options: ExecEnvOptions & { org?: 'file' | 'each' } = {}): {
  env: ExecEnv;
  org: OrgContext;
} {
  const env = late<ExecEnv>('the executions environment');
  const org = late<OrgContext>('the organization');
  before(async () => {
    env.set(await startExecEnv(options));
    if (options.org !== 'each') org.set(await orgContext(env.value));
  });
  if (options.org === 'each') beforeEach(async () => org.set(await orgContext(env.value)));
  after(async () => {
    if (env.isSet) await env.value.stop();
  });
  return { env: env.value, org: org.value };
}

/** Publishes a definition through the API; returns the workflow id. */
export async function publish(env: ExecEnv, org: OrgContext, body: Record<string, unknown>): Promise<string> {
  const res = await org.auth(env.t.request.post('/workflows/definitions')).send(body);
  if (res.status !== 201) throw new Error(`publish failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.workflow.id as string;
}

export async function execute(env: ExecEnv, org: OrgContext, ref: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await org.auth(env.t.request.post(`/workflows/definitions/${ref}/execute`)).send(body);
  if (res.status !== 202) throw new Error(`execute failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.executionId as string;
}

/** Polls GET /workflows/executions/{id} until `done` holds (or fails after `timeoutMs`, about 15 s by default). */
export async function waitFor(
  env: ExecEnv,
  org: OrgContext,
  id: string,
  done: (body: Record<string, unknown>) => boolean,
  path = '',
  timeoutMs = 15_000,
): Promise<Record<string, unknown>> {
  let last: Record<string, unknown> = {};
  for (let i = 0; i < timeoutMs / 50; i++) {
    const res = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`));
    last = res.body as Record<string, unknown>;
    if (res.status === 200 && done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`condition not met for ${id}${path}: ${JSON.stringify(last)}`);
}

export const finished = (body: Record<string, unknown>): boolean => !['running', 'waiting'].includes(String(body.status));

export async function countExecutions(db: DataSource, organizationId: string): Promise<number> {
  const [row] = await db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE organization_id = $1`, [
    organizationId,
  ]);
  return row.n;
}
