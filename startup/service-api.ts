/**
 * The service's API part: the HTTP app (routes, token verification, readiness, console) listening, the event
 * streams, the sweepers every API replica runs (execution start reconciler, flow control, retention), and for `npm start`
 * the banner a newcomer reads; each registered to stop in order.
 */
import type { Client } from '@temporalio/client';
import type { OperatorPlugins } from '../activities/plugins/operator/load-plugins';
import { createApp } from '../api/app';
import { workflowReach } from '../api/access/workflow-reach';
import { createTokenVerifier } from '../api/http/auth';
import { createServiceTokens } from '../api/http/service-tokens';
import { SignInCodes } from '../api/console/sign-in-codes';
import { ExecutionEventHub } from '../api/executions';
import { buildAreaRoutes } from '../api/routes';
import { pingDatabase, type Database } from '../db/database';
import { AuditEventRepository } from '../db/repositories/audit-event-repository';
import { startBanner } from './banner';
import { consoleOptions, signInLink } from './console';
import { startExecutionReconciler } from './execution-reconciler';
import { startFlowSweeper } from './flow-sweeper';
import { closeGracefully, listen, portOf } from './http-server';
import { startRetentionSweeper } from './retention-sweeper';
import type { ServiceSecrets } from './service-secrets';
import type { ServiceStart } from './service-parts';
import type { ServiceTemporal } from './service-temporal';

/** What the API is started with besides the Temporal connection: what start-up opened, and the worker's part in it. */
export interface ApiDependencies {
  database: Database;
  secrets: ServiceSecrets;
  operatorPlugins: OperatorPlugins;
  /** `npm start`: a client on the worker's connection, for eager workflow starts. */
  eagerStarts?: Client;
  temporalSdkMetricsUrl?: string;
}

/** Starts the API; answers the port it listens on. */
export async function startServiceApi(
  { config, logger, parts, cleanups, tracing }: ServiceStart,
  { database, secrets, operatorPlugins, eagerStarts, temporalSdkMetricsUrl }: ApiDependencies,
  { temporal, connection, client, temporalUiUrl, temporalVersion, temporalRetentionDays }: ServiceTemporal,
): Promise<number> {
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
  const port = portOf(server);
  cleanups.push({ name: 'http server', run: () => closeGracefully(server, config.shutdownGraceMs) });
  // Runs before the server closes (cleanups run in reverse): open event streams end instead of holding the shutdown.
  cleanups.push({ name: 'event streams', run: () => eventHub.close() });
  logger.info({ port, host: config.host, publicBaseUrl: config.publicBaseUrl }, 'API listening');
  // Repairs executions whose start a crashed API process lost, and open runs Temporal closed or cannot progress (every API replica sweeps; that is safe).
  const starts = {
    dataSource: database.dataSource,
    temporal: client,
    taskQueue: config.temporalTaskQueue,
    publicBaseUrl: config.publicBaseUrl,
    limits: config.limits,
    logger,
  };
  const reconciler = startExecutionReconciler(
    { ...starts, reach: workflowReach },
    { onOpenRuns: (found, taskFailing) => app.metrics.openRunsChecked(found, taskFailing) },
  );
  cleanups.push({ name: 'execution start reconciler', run: () => reconciler.stop() });
  // Starts throttled and debounced runs when their time comes (every API replica sweeps; SKIP LOCKED keeps them apart).
  const flowSweeper = startFlowSweeper(starts, { onSwept: (queue, waited) => app.metrics.flowSwept(queue, waited) });
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
  return port;
}
