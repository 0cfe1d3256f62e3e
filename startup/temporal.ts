/**
 * Resolves the Temporal the app (and tests) talk to:
 *  1. `address` (TEMPORAL_ADDRESS) when configured;
 *  2. else the real Temporal CLI development server (see temporal-cli.ts for where a
 *     binary is found, downloaded or built), with its Web UI and SQLite persistence when asked;
 *  3. else the in-memory stand-in (test/temporal-server), launched through its
 *     executable, with a warning: its executions do not survive a restart.
 * `server: 'stand-in'` (TEMPORAL_SERVER) skips step 2; `server: 'cli'` makes a missing
 * CLI an error instead of a fall-back. Local servers are child processes; `stop()` ends them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, realpathSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { removePidFile, stopOrphan, writePidFile } from './orphan-process';
import { buildTemporalCli, downloadTemporalCli, findTemporalCli } from './temporal-cli';

export type TemporalKind = 'configured' | 'cli' | 'stand-in';
/** TEMPORAL_SERVER: which local server to use when no address is configured. */
export type TemporalServerChoice = 'auto' | 'cli' | 'stand-in';

export interface TemporalEndpoint {
  address: string;
  namespace: string;
  kind: TemporalKind;
  /** The Web UI's base URL, when we started a server that serves one. */
  uiUrl?: string;
  /** The server process we started, if any. */
  pid?: number;
  /** The CLI binary that runs it (kind `cli`). */
  binary?: string;
  /** Where the server's own output goes (kind `cli` with a `dbFilename`). */
  logFile?: string;
  /** stops what we started; no-op for configured */
  stop(): Promise<void>;
}

export interface ResolveTemporalOptions {
  address?: string;
  namespace: string;
  cliPath?: string;
  server?: TemporalServerChoice;
  /** Serve the CLI dev server's Web UI on this port (taken: another free port, with a warning). Unset: headless. */
  uiPort?: number;
  /** Frontend port to use when free (else any free port). Unset: any free port. */
  preferredPort?: number;
  /** SQLite file for the CLI dev server, so executions survive a restart. Unset: in memory. */
  dbFilename?: string;
  /** When no CLI is on this machine, try `@temporalio/testing`'s download, then a build with Go (default true). */
  download?: boolean;
  /** Aborts a download or build under way (the service was asked to stop while starting). */
  signal?: AbortSignal;
  onWarning?: (message: string) => void;
  onProgress?: (message: string) => void;
}

/**
 * Dynamic configuration the CLI dev server starts with (`npm start`, and the tests' real server,
 * so they run as operators do). Eager activity execution: the server hands a workflow task's new
 * activity straight back to the worker that completed the task, instead of through the matching
 * queue, which saves a round trip on every effectful step (figures: docs/benchmarks.md). Eager
 * workflow start: a start from a process whose worker polls the task queue gets the run's first
 * workflow task in its reply (executions/deps.ts eagerStarts; server 1.29's default already, set so
 * an older server behaves the same). The production server reads the same settings from
 * deploy/temporal/dynamicconfig.yaml.
 */
export const DEV_SERVER_DYNAMIC_CONFIG = [
  '--dynamic-config-value',
  'system.enableActivityEagerExecution=true',
  '--dynamic-config-value',
  'system.enableEagerWorkflowStart=true',
];

/**
 * SQLite pragmas for the CLI dev server's database file (`npm start`'s `--db-filename`; the in-memory
 * server has no file to tune). With SQLite's defaults (rollback journal, `synchronous=FULL`) each commit
 * of the server's one connection waits for several fsyncs; write-ahead logging with `synchronous=NORMAL`
 * syncs only at checkpoints, so the server does more workflows per second for less CPU each
 * (docs/benchmarks.md, "Figures behind choices in the code"). `synchronous=OFF` gains nothing
 * measurable over NORMAL, not worth its risk.
 * Safe for a dev server: WAL with NORMAL never corrupts the database; a power loss (not a crash or a
 * kill of the server: the OS holds its commits) may lose the last transactions before it.
 * The CLI passes each pragma to SQLite as is, which ignores a name it does not know.
 */
export const DEV_SERVER_SQLITE_PRAGMAS = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

export const STAND_IN_WARNING =
  'No TEMPORAL_ADDRESS and no Temporal CLI found: using the in-memory Temporal stand-in. Workflow executions will not survive a restart. Run scripts/install-temporal-cli (needs Go) or set TEMPORAL_CLI_PATH for the real server and its Web UI.';

/** The stand-in's executables (Temporal CLI dev server and time-skipping test server look-alikes). */
export const STAND_IN_DEV_SERVER = path.resolve(__dirname, '../test/temporal-server/bin/temporal');
export const STAND_IN_TEST_SERVER = path.resolve(__dirname, '../test/temporal-server/bin/temporal-test-server');

export async function resolveTemporal(options: ResolveTemporalOptions): Promise<TemporalEndpoint> {
  if (options.address) {
    return { address: options.address, namespace: options.namespace, kind: 'configured', stop: async () => {} };
  }
  const choice = options.server ?? 'auto';
  if (choice !== 'stand-in') {
    const cli = await obtainTemporalCli(options);
    if (cli) return startCliDevServer(cli, options);
    if (choice === 'cli') {
      throw new Error('TEMPORAL_SERVER=cli but no Temporal CLI was found: run scripts/install-temporal-cli or set TEMPORAL_CLI_PATH');
    }
    // `npm start` also frames this in its banner (startup/banner.ts).
    options.onWarning?.(STAND_IN_WARNING);
  }
  return startDevServer(STAND_IN_DEV_SERVER, options.namespace, 'stand-in');
}

/** A real CLI binary already on this machine (never the stand-in's look-alike, which may sit on PATH as `temporal`). */
export async function findRealTemporalCli(cliPath?: string): Promise<string | undefined> {
  const found = await findTemporalCli(cliPath);
  return found && realpathSync(found) !== realpathSync(STAND_IN_DEV_SERVER) ? found : undefined;
}

/** A real CLI: on this machine, else downloaded, else built with Go (both once, into caches the next start finds). */
export async function obtainTemporalCli(
  options: Pick<ResolveTemporalOptions, 'cliPath' | 'download' | 'onProgress' | 'signal'>,
): Promise<string | undefined> {
  const found = await findRealTemporalCli(options.cliPath);
  if (found || options.download === false) return found;
  const downloaded = await downloadTemporalCli({ onProgress: options.onProgress });
  options.signal?.throwIfAborted();
  return downloaded ?? buildTemporalCli({ onProgress: options.onProgress, signal: options.signal });
}

async function startCliDevServer(cli: string, options: ResolveTemporalOptions): Promise<TemporalEndpoint> {
  const extraArgs: string[] = [];
  const pidFile = options.dbFilename ? `${options.dbFilename}.pid` : undefined;
  if (options.dbFilename && pidFile) {
    mkdirSync(path.dirname(options.dbFilename), { recursive: true });
    // A dev server that a killed `npm start` left running still holds this database and the ports.
    if (await stopOrphan(pidFile, options.dbFilename))
      options.onWarning?.(`stopped a Temporal dev server left running on ${options.dbFilename}`);
    extraArgs.push('--db-filename', options.dbFilename, ...DEV_SERVER_SQLITE_PRAGMAS);
  }
  let uiUrl: string | undefined;
  if (options.uiPort !== undefined) {
    let uiPort = options.uiPort;
    if (!(await isPortFree(uiPort))) {
      const taken = uiPort;
      uiPort = await freePort();
      options.onWarning?.(`Temporal Web UI port ${taken} is taken; serving the UI on ${uiPort} (set TEMPORAL_UI_PORT)`);
    }
    extraArgs.push('--ui-port', String(uiPort));
    uiUrl = `http://127.0.0.1:${uiPort}`;
  } else {
    extraArgs.push('--headless');
  }
  const port = options.preferredPort !== undefined && (await isPortFree(options.preferredPort)) ? options.preferredPort : undefined;
  // Its own output (plain text, some of it noise such as "Failed to lock task queue" at shutdown) goes to a file beside its data.
  const logFile = options.dbFilename ? `${options.dbFilename.replace(/\.sqlite$/, '')}.log` : undefined;
  const endpoint = { ...(await startDevServer(cli, options.namespace, 'cli', { extraArgs, port, logFile })), binary: cli, logFile };
  if (!pidFile) return { ...endpoint, uiUrl };
  writePidFile(pidFile, endpoint.pid);
  return {
    ...endpoint,
    uiUrl,
    stop: async () => {
      await endpoint.stop();
      removePidFile(pidFile);
    },
  };
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Launches a dev server (the Temporal CLI or the stand-in's look-alike) on a free port and waits until it serves. */
export async function startDevServer(
  executable: string,
  namespace: string,
  kind: 'cli' | 'stand-in',
  options: { extraArgs?: string[]; port?: number; logFile?: string } = {},
): Promise<TemporalEndpoint> {
  const port = options.port ?? (await freePort());
  const args = [
    'server',
    'start-dev',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--ip',
    '127.0.0.1',
    '--log-level',
    'error',
    ...(kind === 'cli' ? DEV_SERVER_DYNAMIC_CONFIG : []),
    ...(options.extraArgs ?? ['--headless']),
  ];
  // Its own process group: the CLI signals its whole group when it stops, and a Ctrl-C meant for us
  // must reach us first, so that we stop the server last, in order.
  const log = options.logFile ? openSync(options.logFile, 'a') : undefined;
  const child = spawn(executable, args, { stdio: ['ignore', log ?? 'ignore', log ?? 'inherit'], detached: true });
  if (log !== undefined) closeSync(log); // the child holds its own descriptor
  const address = `127.0.0.1:${port}`;
  try {
    await waitUntilServing(address, child, kind === 'cli' ? 30_000 : 10_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return { address, namespace, kind, pid: child.pid, stop: () => stopChild(child) };
}

export async function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

async function waitUntilServing(address: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`Temporal server exited with code ${child.exitCode} before serving ${address}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      try {
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return;
    } catch (error) {
      lastError = error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw new Error(`Temporal server at ${address} did not start within ${timeoutMs} ms: ${String(lastError)}`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
