/**
 * The service's worker part: the worker (the SDK's runtime is installed before, ./service-temporal-runtime.ts) with the
 * activities' dependencies (database, secrets, egress rules, operator plugins), registered to stop in order.
 */
import { DEFAULT_EGRESS } from '../activities/egress/policy';
import type { OperatorPlugins } from '../activities/plugins/operator/load-plugins';
import { workflowReach } from '../api/access/workflow-reach';
import type { Database } from '../db/database';
import { startWorker, type RunningWorker } from '../worker/worker';
import type { ServiceSecrets } from './service-secrets';
import type { ServiceStart } from './service-parts';
import type { ServiceTemporal } from './service-temporal';

export async function startServiceWorker(
  { config, logger, cleanups, tracing }: ServiceStart,
  { database, secrets, operatorPlugins }: { database: Database; secrets: ServiceSecrets; operatorPlugins: OperatorPlugins },
  { temporal, client }: ServiceTemporal,
): Promise<RunningWorker> {
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
  return worker;
}
