/**
 * The Temporal SDK's runtime for this process: its log lines through the service logger and, when a worker
 * runs here, its metrics. Installed before anything native of the SDK exists (the API's client and the
 * worker both connect through the SDK's core, and the first connection would otherwise create the runtime
 * with the SDK's defaults).
 */
import type { AppConfig } from '../config/config';
import { installTemporalRuntime } from '../worker/worker';
import type { ServiceParts, ServiceStart } from './service-parts';
import { freePort } from './temporal';

/** Installs the runtime; answers where this process's API reads the worker's SDK metrics (when it runs both). */
export async function installServiceTemporalRuntime({ config, logger, parts }: ServiceStart): Promise<string | undefined> {
  const { metricsAddress } = installTemporalRuntime(logger, parts.worker ? await temporalMetricsAddress(config, parts) : undefined);
  if (!metricsAddress || !parts.api) return undefined;
  return `http://${metricsAddress.replace(/^(0\.0\.0\.0|\[?::\]?):/, '127.0.0.1:')}/metrics`;
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
