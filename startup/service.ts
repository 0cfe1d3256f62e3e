/**
 * Composition root shared by `npm start` (API and worker in one process),
 * `npm run start:api` and `npm run start:worker`: opens the database, resolves
 * Temporal, starts the requested parts, and shuts everything down in order on
 * SIGTERM or SIGINT.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../api/app';
import { DEFAULT_EGRESS } from '../activities/egress/policy';
import { loadOperatorPlugins } from '../activities/plugins/operator/load-plugins';
import { bootstrapAdmins } from '../api/admin/bootstrap';
import { workflowReach } from '../api/access/workflow-reach';
import { createTokenVerifier } from '../api/http/auth';
import { createServiceTokens } from '../api/http/service-tokens';
import { SignInCodes } from '../api/console/sign-in-codes';
import { startBanner } from './banner';
import { consoleOptions, signInLink } from './console';
import { ExecutionEventHub } from '../api/executions';
import { buildAreaRoutes } from '../api/routes';
import type { AppConfig } from '../config/config';
import { openDatabase, pingDatabase, type Database } from '../db/database';
import { leaveShutdownSignalsToCaller } from '../db/embedded-postgres';
import { startWorker, installTemporalRuntime, type RunningWorker } from '../worker/worker';
import { startExecutionReconciler } from './execution-reconciler';
import { startFlowSweeper } from './flow-sweeper';
import { startRetentionSweeper } from './retention-sweeper';
import { AuditEventRepository } from '../db/repositories/audit-event-repository';
import { closeGracefully, listen, portOf } from './http-server';
import { forgetChild, guardChild, guardPostmaster } from './child-watchdog';
import { watchParent } from './parent-watch';
import type { Logger } from '../config/logger';
import { resolveServiceSecrets } from './service-secrets';
import { ShutdownSequence } from './shutdown-sequence';
import { freePort, resolveTemporal, type TemporalEndpoint } from './temporal';
import { startTracing } from './tracing';
import { applyNamespaceRetention } from './temporal-retention';
import { cliVersion } from './temporal-cli';

export interface ServiceParts {
  api: boolean;
  worker: boolean;
}

export interface RunningService {
  /** Port the API listens on (when the API part runs). */
  port?: number;
  /** Stops accepting requests, drains in-flight work, and releases every resource. */
  stop(): Promise<void>;
}

/** `signal` aborts a start under way (a stop asked for while a Temporal CLI downloads or builds). */
export async function startService(config: AppConfig, logger: Logger, parts: ServiceParts, signal?: AbortSignal): Promise<RunningService> {
  // Stopped in reverse order of start: start reconciler and HTTP first, then worker, Temporal client, database, Temporal server.
  const cleanups = new ShutdownSequence(logger);
  const stopAll = () => cleanups.stopAll();

  try {
    // First: a broken plugin stops start-up before anything is opened (PluginLoadError names it).
    const operatorPlugins = await loadOperatorPlugins(config.plugins, process.cwd());
    if (operatorPlugins.byName.size > 0)
      logger.info(
        { plugins: [...operatorPlugins.byName.values()].map(({ descriptor }) => `${descriptor.name}@${descriptor.version}`) },
        'operator plugins loaded',
      );
    // Started first, so it stops last: the spans of everything else's shutdown are exported too.
    const tracing = await startTracing(config.telemetry, logger);
    if (tracing) cleanups.push({ name: 'traces', run: () => tracing.shutdown() });
    const secrets = await resolveServiceSecrets(config, logger);
    const database: Database = await openDatabase(config, logger);
    // Guarded from now on: a crash of this process (SIGKILL, a V8 abort) ends the server too (child-watchdog.ts).
    const postmaster = database.embedded ? guardPostmaster(path.join(config.dataDir, 'postgres')) : undefined;
    cleanups.push({
      name: 'database',
      run: async () => {
        await database.close();
        if (postmaster !== undefined) forgetChild(postmaster);
      },
    });
    if (parts.api) {
      // `npm start` (everything in one process) makes user 1 of organization 1 an admin when nothing is configured.
      await bootstrapAdmins(database.dataSource, config.bootstrapAdmins, logger, { defaultFirstAdmin: parts.worker });
    }

    const temporal: TemporalEndpoint = await resolveTemporal({
      address: config.temporalAddress,
      namespace: config.temporalNamespace,
      cliPath: config.temporalCliPath,
      server: config.temporalServer,
      // The one-process `npm start` gives operators the dev server's Web UI and keeps its runs across restarts.
      ...(parts.api && parts.worker
        ? { uiPort: config.temporalUiPort, preferredPort: 7233, dbFilename: path.join(config.dataDir, 'temporal', 'dev-server.sqlite') }
        : {}),
      onWarning: (message) => logger.warn(message),
      onProgress: (message) => logger.info(message),
      signal,
    });
    if (temporal.pid !== undefined) guardChild(temporal.pid, 'SIGTERM');
    cleanups.push({
      name: 'temporal server',
      run: async () => {
        await temporal.stop();
        if (temporal.pid !== undefined) forgetChild(temporal.pid);
      },
    });
    const temporalUiUrl = config.temporalUiUrl ?? temporal.uiUrl;
    const temporalVersion = temporal.binary ? await cliVersion(temporal.binary) : undefined;
    logger.info(
      { address: temporal.address, namespace: temporal.namespace, kind: temporal.kind, ui: temporalUiUrl, version: temporalVersion },
      'Temporal resolved',
    );

    const connection = await Connection.connect({ address: temporal.address });
    cleanups.push({ name: 'temporal client', run: () => connection.close() });
    const client = new Client({
      connection,
      namespace: temporal.namespace,
      ...(tracing ? { interceptors: { workflow: tracing.clientInterceptors } } : {}),
    });
    // Temporal keeps closed runs as long as we keep executions (TEMPORAL_RETENTION_DAYS); links honour what it keeps.
    const temporalRetentionDays =
      (await applyNamespaceRetention(connection.workflowService, temporal.namespace, config.temporalRetentionDays, logger)) ??
      config.temporalRetentionDays;

    let worker: RunningWorker | undefined;
    let temporalSdkMetricsUrl: string | undefined;
    if (parts.worker) {
      const { metricsAddress } = installTemporalRuntime(logger, await temporalMetricsAddress(config, parts));
      if (metricsAddress && parts.api)
        temporalSdkMetricsUrl = `http://${metricsAddress.replace(/^(0\.0\.0\.0|\[?::\]?):/, '127.0.0.1:')}/metrics`;
      worker = await startWorker({
        address: temporal.address,
        namespace: temporal.namespace,
        taskQueue: config.temporalTaskQueue,
        shutdownGraceMs: config.shutdownGraceMs,
        codeExec: config.codeExec,
        tracing: tracing?.worker,
        stackTraces: config.telemetry.workflowStackTraces,
        activityDeps: {
          dataSource: database.dataSource,
          logger,
          encryptionKey: secrets.encryptionKey,
          temporalNamespace: temporal.namespace,
          publicBaseUrl: config.publicBaseUrl,
          limits: config.limits,
          recoveryStarts: { temporal: client, taskQueue: config.temporalTaskQueue },
          operatorPlugins,
          reach: workflowReach,
          egress: {
            allow: config.egressAllowHosts ?? DEFAULT_EGRESS.allow,
            deny: config.egressDenyHosts ?? DEFAULT_EGRESS.deny,
            allowCidrs: config.egressAllowCidrs,
          },
        },
      });
      const running = worker;
      cleanups.push({ name: 'worker', run: () => running.shutdown() });
      logger.info({ taskQueue: config.temporalTaskQueue }, 'worker started');
    }

    // `npm start` (the API and the worker in one process): starts hand the run's first workflow task
    // straight to this worker (eager workflow start), which saves a trip through Temporal's matching.
    const eagerStarts =
      worker && parts.api
        ? new Client({
            connection: worker.connection,
            namespace: temporal.namespace,
            ...(tracing ? { interceptors: { workflow: tracing.clientInterceptors } } : {}),
          })
        : undefined;

    let port: number | undefined;
    if (parts.api) {
      const eventHub = new ExecutionEventHub(database.dataSource);
      // The one-process `npm start` with a shared signing key prints a one-time console sign-in link.
      const signInCodes = parts.worker && secrets.auth.kind === 'hs256' ? new SignInCodes() : undefined;
      const serviceTokens = createServiceTokens(secrets.serviceKey);
      const app = createApp({
        config,
        logger,
        verifier: createTokenVerifier(secrets.auth, { audience: config.authJwtAudience, issuer: config.authJwtIssuer }, serviceTokens),
        readiness: {
          postgres: () => pingDatabase(database.dataSource),
          temporal: Object.assign(async () => void (await connection.workflowService.getSystemInfo({})), { kind: temporal.kind }),
        },
        routes: buildAreaRoutes({
          config: { ...config, temporalUiUrl, temporalRetentionDays },
          dataSource: database.dataSource,
          temporal: client,
          eagerStarts,
          encryptionKey: secrets.encryptionKey,
          serviceTokens,
          eventHub,
          plugins: operatorPlugins.catalog,
        }),
        requestSpans: tracing?.requestSpans,
        temporalSdkMetricsUrl,
        console: await consoleOptions(
          database.dataSource,
          serviceTokens,
          signInCodes,
          logger,
          config.oidc && { settings: config.oidc, sharedSecret: secrets.encryptionKey },
        ),
      });
      const server = await listen(app.koa.callback(), config.port, config.host);
      port = portOf(server);
      cleanups.push({ name: 'http server', run: () => closeGracefully(server, config.shutdownGraceMs) });
      // Runs before the server closes (cleanups run in reverse): open event streams end instead of holding the shutdown.
      cleanups.push({ name: 'event streams', run: () => eventHub.close() });
      logger.info({ port, host: config.host, publicBaseUrl: config.publicBaseUrl }, 'API listening');
      // Repairs executions whose start a crashed API process lost, and open runs Temporal closed or cannot progress (every API replica sweeps; that is safe).
      const reconciler = startExecutionReconciler(
        {
          dataSource: database.dataSource,
          temporal: client,
          taskQueue: config.temporalTaskQueue,
          publicBaseUrl: config.publicBaseUrl,
          limits: config.limits,
          logger,
          reach: workflowReach,
        },
        { onOpenRuns: (found, taskFailing) => app.metrics.openRunsChecked(found, taskFailing) },
      );
      cleanups.push({ name: 'execution start reconciler', run: () => reconciler.stop() });
      // Starts throttled and debounced runs when their time comes (every API replica sweeps; SKIP LOCKED keeps them apart).
      const flowSweeper = startFlowSweeper(
        {
          dataSource: database.dataSource,
          temporal: client,
          taskQueue: config.temporalTaskQueue,
          publicBaseUrl: config.publicBaseUrl,
          limits: config.limits,
          logger,
        },
        { onSwept: (queue, waited) => app.metrics.flowSwept(queue, waited) },
      );
      cleanups.push({ name: 'flow sweeper', run: () => flowSweeper.stop() });
      // Removes ended executions past their retention, in bounded batches (every API replica sweeps; SKIP LOCKED keeps them apart).
      const retention = startRetentionSweeper({
        dataSource: database.dataSource,
        defaultDays: config.limits.executionRetentionDays,
        batchSize: config.limits.retentionSweepBatch,
        intervalMs: config.limits.retentionSweepIntervalSeconds * 1000,
        logger,
        // The audit trail is kept by its own retention (AUDIT_RETENTION_DAYS), swept with the executions.
        steps: [
          {
            name: 'auditEvents',
            days: config.auditRetentionDays,
            deleteOlderThan: (cutoff, limit) => new AuditEventRepository(database.dataSource.manager).deleteOlderThan(cutoff, limit),
          },
        ],
        onSwept: (counts) => app.metrics.retentionRemoved(counts),
      });
      cleanups.push({ name: 'retention sweeper', run: () => retention.stop() });
      if (parts.worker) {
        // `npm start`: what a newcomer needs, once, in plain text (also when logs are JSON).
        const banner = startBanner({
          apiUrl: config.publicBaseUrl,
          consoleLink: signInCodes ? signInLink(signInCodes, config) : undefined,
          temporal: {
            kind: temporal.kind,
            address: temporal.address,
            uiUrl: temporalUiUrl,
            version: temporalVersion,
            logFile: temporal.logFile,
            standInReason: config.temporalServer === 'stand-in' ? 'TEMPORAL_SERVER=stand-in asks for it' : undefined,
          },
          dataDir: config.dataDir,
          embeddedDatabase: database.embedded,
        });
        // After the log lines written so far (pino's JSON destination writes asynchronously).
        await new Promise<void>((resolve) => (logger.flush ? logger.flush(() => resolve()) : resolve()));
        process.stdout.write(`\n${banner}\n\n`);
      }
    }
    return { port, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Where the worker's Temporal SDK serves its metrics: WORKER_METRICS_PORT on HOST when set; else, when this
 * process answers `/metrics` too, a free loopback port only it reads; else nowhere (a worker alone, unasked).
 */
async function temporalMetricsAddress(config: AppConfig, parts: ServiceParts): Promise<string | undefined> {
  const port = config.telemetry.workerMetricsPort;
  if (port !== undefined) return `${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  return parts.api ? `127.0.0.1:${await freePort()}` : undefined;
}

/**
 * Stops the service once, on the first SIGTERM, SIGINT or SIGHUP or when the process that started us
 * exits (startup/parent-watch.ts), then exits 0 (1 if stopping failed). Set up before start-up
 * ends: a stop asked for while starting aborts what is under way (`starting`), then stops what
 * had started.
 */
export function stopOnSignals(service: RunningService | Promise<RunningService>, logger: Logger, starting?: AbortController): void {
  leaveShutdownSignalsToCaller();
  let started = false;
  void Promise.resolve(service).then(
    () => (started = true),
    () => undefined, // a start that fails is reported by its caller
  );
  let stopping = false;
  const stop = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    if (!started) starting?.abort(new Error(`stopped while starting (${reason})`));
    Promise.resolve(service).then(
      (running) =>
        running.stop().then(
          () => {
            logger.info('stopped');
            logger.flush?.();
            process.exit(0);
          },
          (error: unknown) => {
            logger.error({ err: error }, 'shutdown failed');
            process.exit(1);
          },
        ),
      // The start was aborted (or failed): it has stopped what it had started (startService's clean-up).
      () => process.exit(starting?.signal.aborted ? 0 : 1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // The terminal closed: stop as on SIGTERM (by default SIGHUP kills us at once, leaving the Temporal
  // server running), without writing to the terminal that is gone.
  process.on('SIGHUP', () => {
    logger.level = 'silent';
    stop('SIGHUP');
  });
  // A parent killed without passing a signal on (npm under SIGKILL) must not leave the service serving.
  watchParent(() => stop('the parent process exited'));
}
