/**
 * One CLIENT span per outbound request of a plugin, when tracing is on
 * (startup/opentelemetry.ts installs it with `traceEgress`; nothing imports
 * this file otherwise). The called service receives the W3C `traceparent` of
 * that span, so its own spans join the execution's trace; a `traceparent`
 * the step's definition sets itself is sent unchanged (the definition's
 * author decided where the call belongs). Only the method, scheme, host and
 * port are recorded: paths and queries of plugin calls may carry secrets. The
 * host and an error's message may too (a host built from a secret, and the
 * error naming it): both pass through the running activity's scrubber.
 */
import { SpanKind, SpanStatusCode, context, propagation, type Tracer } from '@opentelemetry/api';
import { Headers } from 'undici';
import { currentScrubber } from '../secrets/scrubber-scope';
import type { EgressTracer } from './egress-fetch';

export function egressSpans(tracer: Tracer): EgressTracer {
  return (url, init, send) => {
    const method = (init.method ?? 'GET').toUpperCase();
    const scrubber = currentScrubber();
    const scrub = (text: string) => (scrubber ? scrubber.text(text) : text);
    const attributes = {
      'http.method': method,
      'url.scheme': url.protocol.replace(/:$/, ''),
      'server.address': scrub(url.hostname),
      'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    };
    return tracer.startActiveSpan(`HTTP ${method}`, { kind: SpanKind.CLIENT, attributes }, async (span) => {
      const headers = new Headers(init.headers);
      if (!headers.has('traceparent'))
        propagation.inject(context.active(), headers, { set: (carrier, key, value) => carrier.set(key, value) });
      try {
        const response = await send({ ...init, headers });
        span.setAttribute('http.status_code', response.status);
        if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        return response;
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: scrub(error instanceof Error ? error.message : String(error)) });
        throw error;
      } finally {
        span.end();
      }
    });
  };
}
