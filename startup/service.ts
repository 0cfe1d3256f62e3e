/**
 * Composition root shared by `npm start` (API and worker in one process),
 * `npm run start:api` and `npm run start:worker`: opens the database, resolves
 * Temporal, starts the requested parts, and shuts everything down in order on
 * SIGTERM or SIGINT.
 */
import path from 'node:path';
import { Client } from '@temporalio/client';
import { loadOperatorPlugins } from '../activities/plugins/operator/load-plugins';
import { bootstrapAdmins } from '../api/admin/bootstrap';
import type { AppConfig } from '../config/config';
import { openDatabase, type Database } from '../db/database';
import type { RunningWorker } from '../worker/worker';
import { forgetChild, guardPostmaster } from './child-watchdog';
import type { Logger } from '../config/logger';
import { resolveServiceSecrets } from './service-secrets';
import { ShutdownSequence } from './shutdown-sequence';
import { startTracing } from './tracing';
import type { RunningService, ServiceParts, ServiceStart } from './service-parts';
import { connectTemporal } from './service-temporal';
import { installServiceTemporalRuntime } from './service-temporal-runtime';
import { startServiceWorker } from './service-worker';
import { startServiceApi } from './service-api';

/** Loaded with the service by bin/main.ts (after the configuration is known to be valid). */
export { stopOnSignals } from './stop-on-signals';

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
    const start: ServiceStart = { config, logger, parts, cleanups, tracing };
    if (parts.api) {
      // `npm start` (everything in one process) makes user 1 of organization 1 an admin when nothing is configured.
      await bootstrapAdmins(database.dataSource, config.bootstrapAdmins, logger, { defaultFirstAdmin: parts.worker });
    }

    const temporalSdkMetricsUrl = await installServiceTemporalRuntime(start);
    const temporalParts = await connectTemporal(start, signal);
    const { temporal } = temporalParts;

    const worker: RunningWorker | undefined = parts.worker
      ? await startServiceWorker(start, { database, secrets, operatorPlugins }, temporalParts)
      : undefined;

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
    if (parts.api)
      port = await startServiceApi(start, { database, secrets, operatorPlugins, eagerStarts, temporalSdkMetricsUrl }, temporalParts);
    return { port, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
