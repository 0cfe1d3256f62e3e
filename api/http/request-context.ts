/**
 * Request id and per-request logging and metrics, outermost in the chain. The
 * request id is the server's own, always; a sane `X-Request-Id` from the client
 * is kept beside it (`clientRequestId`, logged and audited) and echoed in the
 * response so the client can match it. The client's address (through trusted
 * proxies only: client-address.ts) goes to the audit trail.
 */
import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger';
import type { HttpMetrics } from '../ops/metrics';
import { clientAddress, trustedProxies, type TrustedProxies } from './client-address';
import type { AppState } from './route';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function requestContext(logger: Logger, metrics: HttpMetrics, proxies: TrustedProxies = trustedProxies([])): Middleware<AppState> {
  return async (ctx, next) => {
    const incoming = ctx.get('x-request-id');
    const clientRequestId = SAFE_REQUEST_ID.test(incoming) ? incoming : undefined;
    const requestId = randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.clientRequestId = clientRequestId;
    ctx.state.clientAddress = clientAddress(ctx.req.socket.remoteAddress, ctx.get('x-forwarded-for'), proxies);
    ctx.set('X-Request-Id', clientRequestId ?? requestId);
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
        clientRequestId,
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
