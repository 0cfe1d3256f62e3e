/**
 * One SERVER span per request, when tracing is on (startup/opentelemetry.ts
 * passes it to createApp; nothing imports this file otherwise). An incoming
 * W3C `traceparent` makes it a child of the caller's span; everything the
 * request does (the Temporal start above all) runs in its context. Named
 * after the matched route pattern, as the request metrics are, so names stay
 * few; paths and queries are not recorded (they may carry identifiers).
 */
import { SpanKind, SpanStatusCode, context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Middleware } from 'koa';
import type { AppState } from './route';

export function requestSpans(tracer: Tracer): Middleware<AppState> {
  return async (ctx, next) => {
    const parent = propagation.extract(context.active(), ctx.headers);
    const span = tracer.startSpan(
      `HTTP ${ctx.method}`,
      { kind: SpanKind.SERVER, attributes: { 'http.method': ctx.method, 'http.request_id': ctx.state.requestId } },
      parent,
    );
    try {
      await context.with(trace.setSpan(parent, span), next);
    } finally {
      const route = (ctx as { _matchedRoute?: string })._matchedRoute;
      if (route) {
        span.updateName(`HTTP ${ctx.method} ${route}`);
        span.setAttribute('http.route', route);
      }
      span.setAttribute('http.status_code', ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
