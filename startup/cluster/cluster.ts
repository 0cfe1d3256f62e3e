/**
 * The production shape on one machine, without Docker (`npm run start:cluster`):
 * PostgreSQL (embedded, or `DATABASE_URL`), the production Temporal server on
 * it with SQL visibility, the Temporal Web UI, `apiReplicas` API processes and
 * `workers` worker processes (each its own process, port and log file), and a
 * small front spreading requests over the replicas. docker-compose.yml
 * describes the same shape.
 *
 * Every part can be stopped, killed and started again by name: the fault test
 * (`npm run test:faults`) does exactly that while load runs.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../db/embedded-postgres';
import type { Logger } from '../../config/logger';
import { freePort, isPortFree } from '../temporal';
import { ShutdownSequence } from '../shutdown-sequence';
import { startChild, type RunningChild } from './children';
import { startFront, type Front } from './front';
import {
  DYNAMIC_CONFIG_FILE,
  awaitNamespace,
  postgresTarget,
  prepareTemporalSchemas,
  startTemporalServer,
  temporalServerTools,
  portsOf,
  temporalPortLayout,
  type TemporalServerPorts,
} from './temporal-server';
import { startTemporalUi } from './temporal-ui';

export interface ClusterOptions {
  /** Folder for the embedded database, generated configuration and logs. */
  dir: string;
  /** The project's database; unset: an embedded PostgreSQL under `dir`. */
  databaseUrl?: string;
  apiReplicas: number;
  workers: number;
  /** The front's port; replicas listen on the ports after it (0: all ports free ones). */
  port: number;
  /** The Temporal frontend's port (0: a free one). */
  temporalPort: number;
  /** The Web UI's port (0: a free one; undefined: no UI). */
  uiPort?: number;
  namespace: string;
  /**
   * Days the namespace keeps closed runs when the cluster registers it (default 3; the API replicas then
   * set TEMPORAL_RETENTION_DAYS on it at start, also on a namespace registered before).
   */
  retentionDays?: number;
  /** Environment given to every API and worker process (secrets, limits, log level, …). */
  appEnv: NodeJS.ProcessEnv;
  logger: Logger;
  maxBodyBytes: number;
  /** WORKER_METRICS_PORT: worker i serves its Temporal SDK metrics on this port + i (unset: the workers serve none). */
  workerMetricsPort?: number;
}

export interface Cluster {
  frontUrl: string;
  temporalAddress: string;
  uiUrl?: string;
  databaseUrl: string;
  logDir: string;
  apis: RunningChild[];
  workers: RunningChild[];
  /** Starts the API replica `index` (0-based) again on its port, after a stop or kill; resolves when it is ready. */
  restartApi(index: number): Promise<RunningChild>;
  restartWorker(index: number): Promise<RunningChild>;
  /** Stops (SIGTERM, or SIGKILL with `kill`) and starts the Temporal server again on the same ports and database. */
  restartTemporal(options?: { kill?: boolean; downMs?: number }): Promise<void>;
  /** Stops and starts the project's PostgreSQL again on the same port (embedded database only). */
  restartPostgres(options?: { downMs?: number }): Promise<void>;
  /** Everything, in reverse order of start. */
  stop(): Promise<void>;
}

const CHILD_ENTRY = (name: 'start-api' | 'start-worker') => {
  // Under tsx (development) the TypeScript entry; from `npm run build` the compiled one beside this file.
  const compiled = !__filename.endsWith('.ts');
  const file = path.resolve(__dirname, '../../bin', `${name}.${compiled ? 'js' : 'ts'}`);
  return { command: process.execPath, args: compiled ? [file] : ['--import', 'tsx', file] };
};

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const { logger } = options;
  const logDir = path.join(options.dir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const stops = new ShutdownSequence(logger, 'cluster shutdown step failed');
  let stopping = false;
  const onUnexpectedExit = (child: RunningChild, code: number | null) => {
    if (!stopping) logger.error({ process: child.spec.name, code, log: child.logFile }, 'a cluster process exited on its own');
  };
  const stopAll = async () => {
    stopping = true;
    await stops.stopAll();
  };

  try {
    // 1. PostgreSQL: the project's database and Temporal's two databases live on it.
    let embedded: EmbeddedDatabase | undefined;
    const postgresPort = options.databaseUrl ? undefined : await freePort();
    const startPostgres = async () =>
      startEmbeddedPostgres({
        dataDir: path.join(options.dir),
        database: 'platform',
        logger,
        port: postgresPort,
        // Temporal's services, the replicas' and the workers' pools.
        maxConnections: 100 + 25 * (options.apiReplicas + options.workers),
      });
    if (!options.databaseUrl) {
      embedded = await startPostgres();
      stops.push({ name: 'postgres', run: () => embedded!.stop() });
    }
    const databaseUrl = options.databaseUrl ?? embedded!.url;
    const pg = postgresTarget(databaseUrl);

    // 2. The Temporal server on it, its schemas first.
    const tools = temporalServerTools();
    await prepareTemporalSchemas(tools, pg, (message) => logger.info(message));
    const ports = await freeLayout(options.temporalPort);
    const temporalAddress = `127.0.0.1:${ports.frontend}`;
    const serverOptions = {
      tools,
      pg,
      ports,
      dir: path.join(options.dir, 'temporal'),
      logDir,
      dynamicConfigFile: DYNAMIC_CONFIG_FILE,
      onUnexpectedExit,
    };
    let temporal = startTemporalServer(serverOptions);
    stops.push({ name: 'temporal server', run: () => temporal.stop() });
    await awaitNamespace(temporalAddress, options.namespace, temporal, options.retentionDays);
    logger.info({ address: temporalAddress, log: temporal.logFile }, 'Temporal server on PostgreSQL ready');

    // 3. The Web UI.
    let uiUrl: string | undefined;
    if (options.uiPort !== undefined) {
      const uiPort = options.uiPort || (await freePort());
      const ui = startTemporalUi({
        uiServer: tools.uiServer,
        temporalAddress,
        namespace: options.namespace,
        port: uiPort,
        dir: path.join(options.dir, 'ui'),
        logDir,
        onUnexpectedExit,
      });
      stops.push({ name: 'temporal ui', run: () => ui.stop() });
      uiUrl = `http://127.0.0.1:${uiPort}`;
    }

    // 4. API replicas and workers, then the front.
    const frontPort = options.port || (await freePort());
    const apiPorts = await Promise.all(
      Array.from({ length: options.apiReplicas }, async (_, i) => (options.port ? options.port + 1 + i : await freePort())),
    );
    const appEnv = (extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv => ({
      ...options.appEnv,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporalAddress,
      TEMPORAL_NAMESPACE: options.namespace,
      PUBLIC_BASE_URL: options.appEnv.PUBLIC_BASE_URL ?? `http://127.0.0.1:${frontPort}`,
      ...(uiUrl ? { TEMPORAL_UI_URL: uiUrl } : {}),
      ...extra,
    });
    const startApi = async (index: number) => {
      const entry = CHILD_ENTRY('start-api');
      const child = startChild(
        { name: `api-${index + 1}`, ...entry, env: appEnv({ PORT: String(apiPorts[index]), HOST: '127.0.0.1' }) },
        logDir,
        onUnexpectedExit,
      );
      await awaitReady(`http://127.0.0.1:${apiPorts[index]}/ready`, child);
      return child;
    };
    const startWorkerProcess = (index: number) =>
      startChild(
        {
          name: `worker-${index + 1}`,
          ...CHILD_ENTRY('start-worker'),
          env: appEnv(options.workerMetricsPort === undefined ? {} : { WORKER_METRICS_PORT: String(options.workerMetricsPort + index) }),
        },
        logDir,
        onUnexpectedExit,
      );

    // The first replica migrates the database alone; the others then find nothing to do.
    const apis: RunningChild[] = [await startApi(0)];
    apis.push(...(await Promise.all(Array.from({ length: options.apiReplicas - 1 }, (_, i) => startApi(i + 1)))));
    stops.push({ name: 'api replicas', run: async () => void (await Promise.all(apis.map((child) => child.stop()))) });
    const workers = Array.from({ length: options.workers }, (_, i) => startWorkerProcess(i));
    stops.push({ name: 'workers', run: async () => void (await Promise.all(workers.map((child) => child.stop()))) });
    const front: Front = await startFront({
      upstreams: apiPorts.map((port) => `127.0.0.1:${port}`),
      port: frontPort,
      maxBodyBytes: options.maxBodyBytes,
    });
    stops.push({ name: 'front', run: () => front.close() });

    return {
      frontUrl: `http://127.0.0.1:${front.port}`,
      temporalAddress,
      uiUrl,
      databaseUrl,
      logDir,
      apis,
      workers,
      async restartApi(index) {
        await apis[index].stop();
        apis[index] = await startApi(index);
        return apis[index];
      },
      async restartWorker(index) {
        await workers[index].stop();
        workers[index] = startWorkerProcess(index);
        return workers[index];
      },
      async restartTemporal({ kill = false, downMs = 0 } = {}) {
        await (kill ? temporal.kill() : temporal.stop());
        await sleep(downMs);
        temporal = startTemporalServer(serverOptions);
        await awaitNamespace(temporalAddress, options.namespace, temporal, options.retentionDays);
      },
      async restartPostgres({ downMs = 0 } = {}) {
        if (!embedded) throw new Error('restartPostgres needs the embedded database (DATABASE_URL is set)');
        await embedded.stop();
        await sleep(downMs);
        embedded = await startPostgres();
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The layout around `frontend`, or (0) around a random frontend port whose whole layout is free. */
async function freeLayout(frontend: number): Promise<TemporalServerPorts> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const layout = temporalPortLayout(frontend || 20_000 + Math.floor(Math.random() * 12_000));
    const free = await Promise.all(portsOf(layout).map((port) => isPortFree(port)));
    if (free.every(Boolean)) return layout;
    if (frontend)
      throw new Error(
        `ports of the Temporal server around ${frontend} are taken: ${portsOf(layout)
          .filter((_, i) => !free[i])
          .join(', ')} (TEMPORAL_PORT)`,
      );
  }
  throw new Error('found no free set of ports for the Temporal server');
}

async function awaitReady(url: string, child: RunningChild, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${child.spec.name} exited before it was ready; see ${child.logFile}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  throw new Error(`${child.spec.name} was not ready within ${timeoutMs} ms; see ${child.logFile}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
