/**
 * `createApp(deps)` assembles the Koa application without listening, so tests
 * drive it through supertest and the composition roots in bin/ decide how it
 * is served.
 */
import Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { defaultReplicaId, type AppConfig } from '../config/config';
import { DEFAULT_LIMITS } from '../config/limits';
import type { Logger } from '../config/logger';
import type { TokenVerifier } from './http/auth';
import { consoleSessionRoutes, type ConsoleSessionDeps } from './console/session-routes';
import { consoleAssets } from './console/static-assets';
import { errorHandler } from './http/error-handler';
import { buildOpenApiDocument } from './http/openapi';
import { trustedProxies } from './http/client-address';
import { requestContext } from './http/request-context';
import { mountRoutes, withDialect, type AppState, type RouteDefinition } from './http/route';
import { createHttpMetrics, type HttpMetrics } from './ops/metrics';
import { opsRoutes, type ReadinessChecks } from './ops/routes';

export const API_VERSION = '0.1.0';

export interface AppDeps {
  /** Without `limits`: the default limits (config/limits.ts). */
  config: Pick<AppConfig, 'bodyLimitBytes' | 'publicBaseUrl'> & Partial<Pick<AppConfig, 'limits' | 'replicaId' | 'trustedProxies'>>;
  logger: Logger;
  verifier: TokenVerifier;
  /** Named dependency checks behind `GET /ready`. */
  readiness: ReadinessChecks;
  /** Routes of the product areas (workflow engine, administration). */
  routes: RouteDefinition[];
  /** The web console under /console: its built files and what its sign-in needs. */
  console?: { assetsDir: string } & Omit<ConsoleSessionDeps, 'verifier'>;
  /** When tracing is on: one span per request (startup/tracing.ts). */
  requestSpans?: Middleware<AppState>;
  /** When this process runs a worker: where its Temporal SDK metrics are served, appended to `/metrics`. */
  temporalSdkMetricsUrl?: string;
}

export interface App {
  koa: Koa<AppState>;
  router: Router<AppState>;
  /** Every route declaration, in mount order. */
  routes: RouteDefinition[];
  openApiDocument(): Record<string, unknown>;
  /** What `/metrics` serves (start-up code counts its sweeps there). */
  metrics: HttpMetrics;
}

export function createApp(deps: AppDeps): App {
  const metrics = createHttpMetrics(deps.temporalSdkMetricsUrl);
  let document: Record<string, unknown> | undefined;
  const routes: RouteDefinition[] = [
    ...withDialect(
      'admin',
      opsRoutes({ metrics, readiness: deps.readiness, logger: deps.logger, openApiDocument: () => openApiDocument() }),
    ),
    ...deps.routes,
    ...(deps.console
      ? withDialect('problem', consoleSessionRoutes({ ...deps.console, verifier: deps.verifier, logger: deps.logger }))
      : []),
  ];
  const openApiDocument = (): Record<string, unknown> =>
    (document ??= buildOpenApiDocument(routes, {
      title: 'Platform API',
      version: API_VERSION,
      description: 'Workflow engine on Temporal and platform administration.',
      serverUrl: deps.config.publicBaseUrl,
    }));

  const router = new Router<AppState>();
  mountRoutes(router, routes, {
    verifier: deps.verifier,
    bodyLimitBytes: deps.config.bodyLimitBytes,
    bodyMaxDepth: (deps.config.limits ?? DEFAULT_LIMITS).maxBodyDepth,
    replica: deps.config.replicaId ?? defaultReplicaId(),
  });

  const koa = new Koa<AppState>({ proxy: true });
  // Koa's default error listener prints to stderr; every error is already logged by our handler.
  koa.silent = true;
  koa.use(requestContext(deps.logger, metrics, trustedProxies(deps.config.trustedProxies ?? [])));
  if (deps.requestSpans) koa.use(deps.requestSpans);
  koa.use(errorHandler(deps.logger, `${deps.config.publicBaseUrl}/errors`));
  if (deps.console) koa.use(consoleAssets(deps.console.assetsDir));
  koa.use(router.routes());
  koa.use(router.allowedMethods());
  return { koa, router, routes, openApiDocument, metrics };
}
