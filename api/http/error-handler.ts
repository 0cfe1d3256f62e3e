/**
 * The one error handler, first in the chain after request id and logging:
 * renders every failure in the dialect of the matched route's family. Unknown errors are
 * logged with their stack and answered as a bare 500.
 */
import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger';
import { renderError, unmatchedRouteDialect } from './dialects';
import { isDatabaseUnavailable } from '../../db/unavailable';
import { HttpError, databaseUnavailable, internalError, notFound } from './errors';
import type { AppState } from './route';

export function errorHandler(logger: Logger, problemTypeBase: string): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) throw notFound(`No route matches ${ctx.method} ${ctx.path}.`, 'route_not_found');
        if (ctx.status === 405) {
          throw new HttpError(
            405,
            'method_not_allowed',
            `${ctx.method} is not allowed on ${ctx.path}; allowed: ${ctx.response.get('Allow')}.`,
          );
        }
        if (ctx.status === 501) throw new HttpError(501, 'not_implemented', `${ctx.method} is not supported.`);
      }
    } catch (caught) {
      const error = toHttpError(caught);
      if (error.status >= 500) {
        logger.error({ err: caught, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
      }
      const rendered = renderError(error, ctx.state.dialect ?? unmatchedRouteDialect(ctx.path), ctx.path, problemTypeBase);
      ctx.status = error.status;
      if (error.headers) ctx.set(error.headers);
      ctx.body = rendered.body;
      ctx.type = rendered.contentType;
    }
  };
}

/**
 * Typed errors pass through; client errors raised by Koa or its libraries keep their status;
 * an unreachable database is a 503 the client may retry; the rest are 500.
 */
function toHttpError(caught: unknown): HttpError {
  if (caught instanceof HttpError) return caught;
  if (isDatabaseUnavailable(caught)) return databaseUnavailable();
  const status = (caught as { status?: unknown } | null)?.status;
  const expose = (caught as { expose?: unknown } | null)?.expose;
  if (typeof status === 'number' && status >= 400 && status < 500 && expose === true) {
    return new HttpError(status, 'bad_request', (caught as Error).message);
  }
  return internalError();
}
