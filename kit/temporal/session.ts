/**
 * The Temporal side of `executor: 'temporal'`: a server (the one the test is
 * pointed at, else a Temporal CLI dev server the kit starts, found as `npm
 * start` finds one), a client, and one worker with the project's workflow
 * bundle and the kit's in-memory activities on a task queue of its own.
 *
 * Started by the first run and shared by the runs that follow; once no run
 * has been in flight for IDLE_CLOSE_MS it is shut down (worker, connections,
 * the server the kit started), so a test process ends without leaving
 * anything behind. `closeTemporalExecutor()` shuts it down at once; a process
 * that exits without either (mocha's --exit) still stops the server it started.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { devNull } from 'node:os';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createLogger } from '../../config/logger';
import { STAND_IN_DEV_SERVER, resolveTemporal, startDevServer, type TemporalEndpoint } from '../../startup/temporal';
import { findTemporalCli, projectBuiltCli } from '../../startup/temporal-cli';
import { EXECUTION_WORKER_TUNING, installTemporalRuntime, workflowBundle } from '../../worker/worker';
import { inMemoryExecutionActivities, type KitRuns } from './activities';
import { temporalEnvironment, type TemporalEnvironment } from './environment';

/** Runs that follow within this long reuse the worker and server; after it they are shut down. */
export const IDLE_CLOSE_MS = 2_000;

export interface TemporalTarget {
  /** host:port of a running Temporal server; unset: TEMPORAL_TESTING_ADDRESS, else TEMPORAL_ADDRESS, else a dev server the kit starts. */
  address?: string;
  /** Default: TEMPORAL_NAMESPACE, else `default`. */
  namespace?: string;
}

export interface KitTemporal {
  client: Client;
  taskQueue: string;
  namespace: string;
  runs: KitRuns;
}

interface Session extends KitTemporal {
  key: string;
  close(): Promise<void>;
}

let opening: Promise<Session> | undefined;
let inFlight = 0;
let idleTimer: NodeJS.Timeout | undefined;
/** The server process the kit started, stopped on exit if nothing closed it before. */
let startedServerPid: number | undefined;
let exitHookInstalled = false;

/** Runs `use` on the shared worker (started if need be); the session closes after IDLE_CLOSE_MS without runs. */
export async function withKitTemporal<T>(target: TemporalTarget, use: (temporal: KitTemporal) => Promise<T>): Promise<T> {
  inFlight += 1;
  clearTimeout(idleTimer);
  try {
    const session = await sessionFor(target);
    return await use(session);
  } finally {
    inFlight -= 1;
    if (inFlight === 0) {
      idleTimer = setTimeout(() => void closeTemporalExecutor(), IDLE_CLOSE_MS);
      idleTimer.unref();
    }
  }
}

/** Shuts the kit's Temporal worker down now, and the server it started (a later run starts them again). */
export async function closeTemporalExecutor(): Promise<void> {
  clearTimeout(idleTimer);
  const session = opening;
  opening = undefined;
  if (session) await (await session.catch(() => undefined))?.close();
}

async function sessionFor(target: TemporalTarget): Promise<Session> {
  const env = temporalEnvironment();
  const address = target.address ?? env.address;
  const namespace = target.namespace ?? env.namespace ?? 'default';
  const key = `${address ?? ''}/${namespace}`;
  if (opening) {
    const current = await opening.catch(() => undefined);
    if (current?.key === key) return current;
    if (current && inFlight > 1)
      throw new TypeError(`executor 'temporal': another run uses Temporal at ${current.key}; run one target at a time`);
    await closeTemporalExecutor();
  }
  const started = openSession(key, address, namespace);
  opening = started;
  started.catch(() => {
    if (opening === started) opening = undefined;
  });
  return started;
}

async function openSession(key: string, address: string | undefined, namespace: string): Promise<Session> {
  quietSdkLogs();
  const endpoint = await resolveServer(address, namespace, temporalEnvironment());
  if (endpoint.pid !== undefined) rememberServer(endpoint.pid);
  const closers: Array<() => Promise<void>> = [];
  try {
    const connection = await Connection.connect({ address: endpoint.address });
    closers.unshift(() => connection.close());
    const workerConnection = await NativeConnection.connect({ address: endpoint.address });
    closers.unshift(() => workerConnection.close());
    const runs: KitRuns = new Map();
    const taskQueue = `kit-${randomUUID()}`;
    const worker = await Worker.create({
      connection: workerConnection,
      namespace,
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: inMemoryExecutionActivities(runs),
      ...EXECUTION_WORKER_TUNING,
    });
    const done = worker.run();
    // A worker that stops by itself (its server gone) fails the runs then in flight; its own end is awaited on close.
    done.catch(() => undefined);
    // Stops polling (runs still in flight were terminated just before).
    closers.unshift(async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    });
    const client = new Client({ connection, namespace });
    // Runs still in flight (their test gave up, or the process closes early) are terminated first, so that nothing
    // waits on a connection about to close.
    closers.unshift(() => abandon(client, runs));
    return {
      key,
      client,
      taskQueue,
      namespace,
      runs,
      close: () => closeAll([...closers, () => stopServer(endpoint)]),
    };
  } catch (error) {
    await closeAll([...closers, () => stopServer(endpoint)]);
    throw error;
  }
}

/** How long a close waits for terminated runs to hand back their results. */
const ABANDON_WAIT_MS = 10_000;

async function abandon(client: Client, runs: KitRuns): Promise<void> {
  if (runs.size === 0) return;
  await Promise.all(
    [...runs.keys()].map((id) =>
      client.workflow
        .getHandle(id)
        .terminate('the kit closed its Temporal executor')
        .catch(() => undefined),
    ),
  );
  const deadline = Date.now() + ABANDON_WAIT_MS;
  while (runs.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers) await close().catch(() => undefined);
}

async function stopServer(endpoint: TemporalEndpoint): Promise<void> {
  await endpoint.stop();
  if (endpoint.pid === startedServerPid) startedServerPid = undefined;
}

/**
 * The server at `address`; else a Temporal CLI dev server (with the settings `npm start` gives it) from a CLI found
 * as start-up finds one, never downloaded or built; the repository's in-memory stand-in only when
 * TEMPORAL_SERVER=stand-in says so (its test lane: the stand-in is not in the built package).
 */
async function resolveServer(address: string | undefined, namespace: string, env: TemporalEnvironment): Promise<TemporalEndpoint> {
  if (address) return resolveTemporal({ address, namespace });
  if (env.standIn) return resolveTemporal({ namespace, server: 'stand-in' });
  const cli = await findCli(env.cliPath);
  if (!cli)
    throw new Error(
      "executor 'temporal' needs a Temporal server: set TEMPORAL_TESTING_ADDRESS or TEMPORAL_ADDRESS (host:port), " +
        'or put the Temporal CLI on PATH (or TEMPORAL_CLI_PATH) for the kit to start its dev server',
    );
  // Its own output (a line of noise when it stops) is not the test's.
  return startDevServer(cli, namespace, 'cli', { logFile: devNull });
}

/** A real CLI: the stand-in's look-alike may sit on PATH as `temporal` in this repository. */
async function findCli(cliPath: string | undefined): Promise<string | undefined> {
  const found = await findTemporalCli(cliPath);
  if (!found || !existsSync(STAND_IN_DEV_SERVER) || realpathSync(found) !== realpathSync(STAND_IN_DEV_SERVER)) return found;
  return projectBuiltCli();
}

function rememberServer(pid: number): void {
  startedServerPid = pid;
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // An exit without the idle close (process.exit, mocha's --exit): the server is a process of its own group.
  process.once('exit', () => {
    if (startedServerPid === undefined) return;
    try {
      process.kill(startedServerPid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
}

/** The SDK logs every failed activity with its stack (a stub that throws, by design): errors only, unless the process chose. */
function quietSdkLogs(): void {
  try {
    installTemporalRuntime(createLogger('error'));
  } catch {
    // The process installed its own Temporal runtime: keep it.
  }
}
