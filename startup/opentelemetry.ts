/**
 * The OpenTelemetry SDK, imported by ./tracing.ts only when an OTLP endpoint
 * is set: one tracer provider whose batch processor sends spans over
 * OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, the W3C trace-context
 * propagator, and the pieces that make one trace of an execution: the API's
 * request spans, the Temporal SDK's interceptors (client, activities, the
 * workflow's module and its span sink) and the egress fetch's client spans.
 */
import { DiagLogLevel, context, diag, propagation, trace } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } from '@opentelemetry/semantic-conventions';
import {
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
  makeWorkflowExporter,
} from '@temporalio/interceptors-opentelemetry';
import { API_VERSION } from '../api/app';
import { requestSpans } from '../api/http/request-spans';
import { traceEgress } from '../activities/egress/egress-fetch';
import { egressSpans } from '../activities/egress/egress-spans';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { Middleware } from 'koa';
import type { AppState } from '../api/http/route';
import type { Logger } from '../config/logger';
import type { WorkerTracing } from '../worker/worker';

/** The SDK's bundle-side interceptors: RunWorkflow, StartActivity (local ones too) and StartChildWorkflow spans. */
const WORKFLOW_INTERCEPTORS = require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

const TRACER = 'platform-api';

export interface Tracing {
  /** One SERVER span per API request, parent of what the request does (api/app.ts puts it after the request id). */
  requestSpans: Middleware<AppState>;
  /** On the Temporal client: StartWorkflow, SignalWorkflow… spans whose context travels in the workflow's headers. */
  clientInterceptors: WorkflowClientInterceptor[];
  worker: WorkerTracing;
  /** Exports the spans still buffered, then stops (a step of the shutdown sequence). */
  shutdown(): Promise<void>;
}

export function startOpenTelemetry(options: { endpoint: string; serviceName: string; logger: Logger }): Tracing {
  const log = options.logger.child({ component: 'opentelemetry' });
  // Export failures are the SDK's to report: warnings and errors reach the service log.
  diag.setLogger(
    {
      error: (message, ...args) => log.error({ args }, message),
      warn: (message, ...args) => log.warn({ args }, message),
      info: () => undefined,
      debug: () => undefined,
      verbose: () => undefined,
    },
    DiagLogLevel.WARN,
  );
  const resource = Resource.default().merge(
    new Resource({ [ATTR_SERVICE_NAME]: options.serviceName, [ATTR_SERVICE_VERSION]: API_VERSION }),
  );
  const processor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces` }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  const tracer = trace.getTracer(TRACER);
  traceEgress(egressSpans(tracer));

  return {
    requestSpans: requestSpans(tracer),
    clientInterceptors: [new OpenTelemetryWorkflowClientInterceptor()],
    worker: {
      interceptors: {
        activity: [
          (ctx) => ({
            inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
            outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
          }),
        ],
      },
      // Spans the workflow makes leave the sandbox through this sink, into the same batch processor.
      sinks: { exporter: makeWorkflowExporter(processor, resource) },
      workflowInterceptorModules: [WORKFLOW_INTERCEPTORS],
    },
    async shutdown() {
      traceEgress(undefined);
      try {
        await provider.shutdown();
      } catch (error) {
        // A collector that is down loses the last batch; the service still stops cleanly.
        log.warn({ err: error }, 'the last spans were not exported');
      } finally {
        // A later start in the same process (tests) registers afresh.
        trace.disable();
        propagation.disable();
        context.disable();
        diag.disable();
      }
    },
  };
}
