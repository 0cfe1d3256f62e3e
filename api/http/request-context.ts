/** Request id and per-request logging and metrics, outermost in the chain. */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger';
import type { HttpMetrics } from '../ops/metrics';
import type { AppState } from './route';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger, metrics: HttpMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.set('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // The matched route pattern keeps metric labels bounded; unmatched paths share one label.
      const route = (ctx as { _matchedRoute?: string })._matchedRoute ?? 'unmatched';
      metrics.observe(ctx.method, route, ctx.status, seconds);
      const line = {
        requestId,
        method: ctx.method,
        path: ctx.path,
        route,
        status: ctx.status,
        durationMs: Math.round(seconds * 1e4) / 10,
        userId: ctx.state.auth?.userId,
        organizationId: ctx.state.auth?.organizationId,
      };
      if (ctx.status >= 500) logger.error(line, 'request');
      else logger.info(line, 'request');
    }
  };
}
