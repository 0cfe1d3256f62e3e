/**
 * The production Temporal server on PostgreSQL, as the production shape runs it
 * without Docker: the binaries `scripts/install-temporal-server` builds, its two
 * databases (history and SQL visibility) created and brought to the newest
 * schema by Temporal's own SQL tool (idempotently: a second start only applies
 * what is new), a generated server configuration, and the namespace registered.
 * docker-compose.yml runs the same server version with the same settings.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { Client as PgClient } from 'pg';
import YAML from 'yaml';
import { childProcessEnvironment } from '../../config/config';
import { projectRoot } from '../../config/project-root';
import { startChild, type RunningChild } from './children';

const run = promisify(execFile);

/** The server release the pinned CLI's dev server also runs (Server 1.29.1). */
export const PINNED_SERVER_VERSION = 'v1.29.1';
// From the project root, so the compiled code (dist/, or a bench's build) finds the same tools.
const TOOLS = path.join(projectRoot(), '.tools', `temporal-server-${PINNED_SERVER_VERSION}`);

export interface TemporalServerTools {
  server: string;
  sqlTool: string;
  uiServer: string;
  schemaDir: string;
}

export function temporalServerTools(dir = TOOLS): TemporalServerTools {
  const tools = {
    server: path.join(dir, 'temporal-server'),
    sqlTool: path.join(dir, 'temporal-sql-tool'),
    uiServer: path.join(dir, 'temporal-ui-server'),
    schemaDir: path.join(dir, 'schema', 'postgresql', 'v12'),
  };
  const missing = Object.values(tools).filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(`The production Temporal server is not built (missing ${missing.join(', ')}): run scripts/install-temporal-server`);
  }
  return tools;
}

export interface PostgresTarget {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** Parses the user, password, host and port out of a `postgres://` URL. */
export function postgresTarget(url: string): PostgresTarget {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

export const TEMPORAL_DATABASES = { history: 'temporal', visibility: 'temporal_visibility' } as const;

/** Creates both databases if missing and applies every schema version not yet applied. */
export async function prepareTemporalSchemas(
  tools: TemporalServerTools,
  pg: PostgresTarget,
  log: (message: string) => void,
): Promise<void> {
  for (const [kind, database] of Object.entries(TEMPORAL_DATABASES)) {
    const sql = async (...args: string[]) =>
      run(tools.sqlTool, ['--plugin', 'postgres12', '--ep', pg.host, '-p', String(pg.port), '-u', pg.user, '--db', database, ...args], {
        // The password travels in the environment, not in a command line anyone can list.
        env: { ...childProcessEnvironment(), SQL_PASSWORD: pg.password },
      });
    const state = await schemaState(pg, database);
    if (state === 'no-database') await sql('create-database');
    if (state !== 'versioned') await sql('setup-schema', '-v', '0.0');
    await sql('update-schema', '-d', path.join(tools.schemaDir, kind === 'history' ? 'temporal' : 'visibility', 'versioned'));
    log(`Temporal ${kind} schema up to date in database ${database}`);
  }
}

async function schemaState(pg: PostgresTarget, database: string): Promise<'no-database' | 'empty' | 'versioned'> {
  const admin = new PgClient({ ...pg, database: 'postgres' });
  await admin.connect();
  try {
    const { rowCount } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) return 'no-database';
  } finally {
    await admin.end();
  }
  const client = new PgClient({ ...pg, database });
  await client.connect();
  try {
    const { rows } = await client.query<{ present: boolean }>(`SELECT to_regclass('public.schema_version') IS NOT NULL AS present`);
    return rows[0]?.present ? 'versioned' : 'empty';
  } finally {
    await client.end();
  }
}

export interface TemporalServerPorts {
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  worker: number;
  /** Membership (ringpop) ports, one per service. */
  membership: { frontend: number; history: number; matching: number; worker: number };
}

/**
 * The standard layout of a Temporal server's ports around its frontend (7233: history
 * 7234, matching 7235, worker 7239, HTTP 7243, membership 6933-6939). Membership ports
 * are stored as PostgreSQL smallints: the frontend port must stay below 32000.
 */
export function temporalPortLayout(frontend: number): TemporalServerPorts {
  if (frontend < 1300 || frontend > 32000) throw new Error(`the Temporal frontend port must be from 1300 to 32000 (got ${frontend})`);
  return {
    frontend,
    frontendHttp: frontend + 10,
    history: frontend + 1,
    matching: frontend + 2,
    worker: frontend + 6,
    membership: { frontend: frontend - 300, history: frontend - 299, matching: frontend - 298, worker: frontend - 294 },
  };
}

/** Every port of a layout, to check they are free. */
export function portsOf(layout: TemporalServerPorts): number[] {
  return [layout.frontend, layout.frontendHttp, layout.history, layout.matching, layout.worker, ...Object.values(layout.membership)];
}

export interface TemporalServerOptions {
  tools: TemporalServerTools;
  pg: PostgresTarget;
  ports: TemporalServerPorts;
  /** Folder for the generated configuration. */
  dir: string;
  logDir: string;
  /** The server's dynamic configuration file. */
  dynamicConfigFile: string;
  onUnexpectedExit?: (child: RunningChild, code: number | null) => void;
}

/** The dynamic configuration docker-compose.yml mounts too: one file, so both shapes run the same settings. */
export const DYNAMIC_CONFIG_FILE = path.join(projectRoot(), 'deploy', 'temporal', 'dynamicconfig.yaml');

/** Writes the server's configuration (same shape as config/development-postgres12.yaml in the server's module). */
export function writeServerConfig(options: TemporalServerOptions): { root: string; env: string } {
  const configDir = path.join(options.dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const store = (database: string, maxConns: number) => ({
    sql: {
      pluginName: 'postgres12',
      databaseName: database,
      connectAddr: `${options.pg.host}:${options.pg.port}`,
      connectProtocol: 'tcp',
      user: options.pg.user,
      password: options.pg.password,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  });
  const service = (grpcPort: number, membershipPort: number, httpPort?: number) => ({
    rpc: { grpcPort, membershipPort, bindOnLocalHost: true, ...(httpPort ? { httpPort } : {}) },
  });
  const { ports } = options;
  const config = {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: 4,
      datastores: {
        'postgres-default': store(TEMPORAL_DATABASES.history, 10),
        'postgres-visibility': store(TEMPORAL_DATABASES.visibility, 2),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: '127.0.0.1' } },
    services: {
      frontend: service(ports.frontend, ports.membership.frontend, ports.frontendHttp),
      history: service(ports.history, ports.membership.history),
      matching: service(ports.matching, ports.membership.matching),
      worker: service(ports.worker, ports.membership.worker),
    },
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: { enabled: true, initialFailoverVersion: 1, rpcName: 'frontend', rpcAddress: `127.0.0.1:${ports.frontend}` },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } },
    namespaceDefaults: { archival: { history: { state: 'disabled' }, visibility: { state: 'disabled' } } },
    dynamicConfigClient: { filepath: options.dynamicConfigFile, pollInterval: '10s' },
  };
  writeFileSync(path.join(configDir, 'cluster.yaml'), YAML.stringify(config), { mode: 0o600 });
  return { root: options.dir, env: 'cluster' };
}

export function startTemporalServer(options: TemporalServerOptions): RunningChild {
  const { root, env } = writeServerConfig(options);
  return startChild(
    {
      name: 'temporal-server',
      command: options.tools.server,
      // No authorizer: the frontend listens on loopback only, as the dev server does.
      args: ['--root', root, '--config', 'config', '--env', env, '--allow-no-auth', 'start'],
    },
    options.logDir,
    options.onUnexpectedExit,
  );
}

/**
 * Waits until the frontend answers, registers the namespace with `retentionDays`
 * (once; an existing one is kept, and its retention set by the API replicas) and waits until the frontend's namespace cache knows it, so
 * workers and clients started next do not see "namespace not found".
 */
export async function awaitNamespace(
  address: string,
  namespace: string,
  server: RunningChild,
  retentionDays = 3,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  let registered = false;
  while (Date.now() < deadline) {
    if (server.process.exitCode !== null)
      throw new Error(`the Temporal server exited (code ${server.process.exitCode}); see ${server.logFile}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        if (!registered) {
          await connection.workflowService
            .registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs(`${Math.max(1, retentionDays)} days`) })
            .catch((error: { code?: number }) => {
              if (error.code !== 6) throw error; // ALREADY_EXISTS
            });
          registered = true;
        }
        await connection.workflowService.countWorkflowExecutions({ namespace });
        return;
      } finally {
        await connection.close();
      }
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
  throw new Error(`Temporal at ${address} did not serve namespace ${namespace} within ${timeoutMs} ms: ${String(lastError)}`);
}
