/**
 * Builds the Koa app the way the service does, with a random HS256 key, a
 * captured logger and supertest, for API tests.
 */
import { randomBytes } from 'node:crypto';
import supertest from 'supertest';
import { createApp, type App, type AppDeps } from '../../api/app';
import { createTokenVerifier, mintToken, type UserType } from '../../api/http/auth';
import type { RouteDefinition } from '../../api/http/route';
import { createServiceTokens, type ServiceTokens } from '../../api/http/service-tokens';
import type { ReadinessChecks } from '../../api/ops/routes';
import { captureLogger, type CapturedLogger } from './logger';

export interface TestApp {
  app: App;
  request: ReturnType<typeof supertest>;
  log: CapturedLogger;
  secret: Uint8Array;
  /** The service's own tokens, accepted by this app beside the HS256 ones. */
  serviceTokens: ServiceTokens;
  token(options: { userId?: string; organizationId: string; userType?: UserType; expiresIn?: string | number }): Promise<string>;
}

export function createTestApp(
  options: {
    routes?: RouteDefinition[];
    readiness?: ReadinessChecks;
    bodyLimitBytes?: number;
    console?: AppDeps['console'];
    secret?: Uint8Array;
    serviceTokens?: ServiceTokens;
  } = {},
): TestApp {
  const secret = options.secret ?? randomBytes(32);
  const serviceTokens = options.serviceTokens ?? createServiceTokens(randomBytes(32));
  const log = captureLogger();
  const app = createApp({
    config: { bodyLimitBytes: options.bodyLimitBytes ?? 1024 * 1024, publicBaseUrl: 'http://api.test' },
    logger: log.logger,
    verifier: createTokenVerifier({ kind: 'hs256', secret }, {}, serviceTokens),
    readiness: options.readiness ?? {},
    routes: options.routes ?? [],
    console: options.console,
  });
  return {
    app,
    request: supertest(app.koa.callback()),
    log,
    secret,
    serviceTokens,
    token: (t) =>
      mintToken({
        userId: t.userId ?? '1',
        organizationId: t.organizationId,
        userType: t.userType ?? 'person',
        secret,
        expiresIn: t.expiresIn,
      }),
  };
}
