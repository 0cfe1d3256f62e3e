/**
 * `npm run start:cluster`: the production shape on one machine (docs/operations.md, "Running in
 * production"): PostgreSQL, the Temporal server on it, its Web UI, API_REPLICAS API
 * processes, WORKERS worker processes and a front on PORT. Ctrl-C stops everything.
 *
 * Settings (besides every setting the API and worker read, passed on to them):
 *   API_REPLICAS (default 2), WORKERS (default 3), PORT (front, default 8080; replicas
 *   on the ports after it), TEMPORAL_PORT (default 7233), TEMPORAL_UI_PORT (default 8233),
 *   DATABASE_URL (default: an embedded PostgreSQL under DATA_DIR/cluster).
 */
import path from 'node:path';
import { childProcessEnvironment } from '../config/config';
import { createProcessLogger } from '../config/logger';
import { startCluster } from '../startup/cluster/cluster';
import { resolveServiceSecrets } from '../startup/service-secrets';
import { stopOnSignals } from '../startup/stop-on-signals';
import { loadConfigOrExit } from './main';

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const logger = createProcessLogger(config);
  const { apiReplicas, workers, temporalPort } = config.cluster;
  // Generated development secrets are written once here, so every process reads the same ones.
  await resolveServiceSecrets(config, logger);
  const cluster = await startCluster({
    dir: path.join(config.dataDir, 'cluster'),
    databaseUrl: config.databaseUrl,
    apiReplicas,
    workers,
    port: config.port,
    temporalPort,
    uiPort: config.temporalUiPort,
    namespace: config.temporalNamespace,
    retentionDays: config.temporalRetentionDays || undefined,
    maxBodyBytes: config.bodyLimitBytes,
    workerMetricsPort: config.telemetry.workerMetricsPort,
    logger,
    appEnv: {
      ...childProcessEnvironment(),
      DATA_DIR: config.dataDir,
      // As `npm start`: user 1 of organization 1 is an admin unless admins are configured.
      ...(config.bootstrapAdmins.length === 0 ? { BOOTSTRAP_ADMINS: '1:1' } : {}),
    },
  });
  logger.info(
    {
      front: cluster.frontUrl,
      replicas: cluster.apis.map((api) => api.spec.name),
      workers: cluster.workers.map((worker) => worker.spec.name),
      temporal: cluster.temporalAddress,
      ui: cluster.uiUrl,
      logs: cluster.logDir,
    },
    'cluster ready',
  );
  console.log(`\nAPI (front over ${apiReplicas} replicas): ${cluster.frontUrl}`);
  if (cluster.uiUrl) console.log(`Temporal Web UI:                   ${cluster.uiUrl}`);
  console.log(`Logs of every process:             ${cluster.logDir}`);
  console.log('A token for user 1 of organization 1: npm run token -- --user 1 --org 1\n');

  stopOnSignals(cluster, logger);
}

main().catch((error: unknown) => {
  console.error(`start:cluster failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
