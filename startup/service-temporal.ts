/**
 * The service's Temporal: resolved (an address given, else a local CLI dev server or the stand-in), guarded
 * as a child process, connected to with a client, and the namespace's retention applied; each registered to
 * stop in order.
 */
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { forgetChild, guardChild } from './child-watchdog';
import { resolveTemporal, type TemporalEndpoint } from './temporal';
import { applyNamespaceRetention } from './temporal-retention';
import { cliVersion } from './temporal-cli';
import type { ServiceStart } from './service-parts';

export interface ServiceTemporal {
  temporal: TemporalEndpoint;
  connection: Connection;
  client: Client;
  temporalUiUrl?: string;
  temporalVersion?: string;
  /** What the namespace keeps closed runs for (links honour it). */
  temporalRetentionDays: number;
}

/** `signal` aborts a resolution under way (a stop asked for while a Temporal CLI downloads or builds). */
export async function connectTemporal(
  { config, logger, parts, cleanups, tracing }: ServiceStart,
  signal: AbortSignal | undefined,
): Promise<ServiceTemporal> {
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
  return { temporal, connection, client, temporalUiUrl, temporalVersion, temporalRetentionDays };
}
