/**
 * Traces, when `OTEL_EXPORTER_OTLP_ENDPOINT` is set: the OpenTelemetry SDK
 * (./opentelemetry.ts) is imported only then, so a service without an
 * endpoint loads nothing of OpenTelemetry, installs no interceptor and runs
 * the workflow bundle it always ran. What each part receives is plain data:
 * the API a middleware, the Temporal client and the worker their
 * interceptors, the worker its bundle's extra workflow interceptor module.
 */
import type { TelemetrySettings } from '../config/config';
import type { Logger } from '../config/logger';
import type { Tracing } from './opentelemetry';

export type { Tracing };

/** Undefined (and nothing loaded) without an OTLP endpoint. */
export async function startTracing(settings: TelemetrySettings, logger: Logger): Promise<Tracing | undefined> {
  if (!settings.otlpEndpoint) return undefined;
  const { startOpenTelemetry } = await import('./opentelemetry.js');
  const tracing = startOpenTelemetry({ endpoint: settings.otlpEndpoint, serviceName: settings.serviceName, logger });
  logger.info({ endpoint: settings.otlpEndpoint, serviceName: settings.serviceName }, 'traces exported over OTLP');
  return tracing;
}
