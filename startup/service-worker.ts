/**
 * The service's worker part: the Temporal SDK runtime (with its metrics address), and the worker with the
 * activities' dependencies (database, secrets, egress rules, operator plugins), registered to stop in order.
 */
import { DEFAULT_EGRESS } from '../activities/egress/policy';
import type { OperatorPlugins } from '../activities/plugins/operator/load-plugins';
import { workflowReach } from '../api/access/workflow-reach';
import type { AppConfig } from '../config/config';
import type { Database } from '../db/database';
import { startWorker, installTemporalRuntime, type RunningWorker } from '../worker/worker';
import type { ServiceSecrets } from './service-secrets';
import type { ServiceParts, ServiceStart } from './service-parts';
import type { ServiceTemporal } from './service-temporal';
import { freePort } from './temporal';

export interface ServiceWorker {
  worker: RunningWorker;
  /** Where this process's API reads the worker's Temporal SDK metrics (when it runs the API too). */
  temporalSdkMetricsUrl?: string;
}

export async function startServiceWorker(
  { config, logger, parts, cleanups, tracing }: ServiceStart,
  { database, secrets, operatorPlugins }: { database: Database; secrets: ServiceSecrets; operatorPlugins: OperatorPlugins },
  { temporal, client }: ServiceTemporal,
): Promise<ServiceWorker> {
  let temporalSdkMetricsUrl: string | undefined;
  const { metricsAddress } = installTemporalRuntime(logger, await temporalMetricsAddress(config, parts));
  if (metricsAddress && parts.api)
    temporalSdkMetricsUrl = `http://${metricsAddress.replace(/^(0\.0\.0\.0|\[?::\]?):/, '127.0.0.1:')}/metrics`;
  const worker = await startWorker({
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
  cleanups.push({ name: 'worker', run: () => worker.shutdown() });
  logger.info({ taskQueue: config.temporalTaskQueue }, 'worker started');
  return { worker, temporalSdkMetricsUrl };
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
