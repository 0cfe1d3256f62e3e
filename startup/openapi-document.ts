/**
 * The service's OpenAPI document without running the service: every route
 * `npm start` serves (operations, the product areas, the console's session),
 * built from clients that never connect. Route declarations need a Temporal
 * client and a data source to close over, not a server behind them; the
 * document is made from the declarations alone.
 */
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../api/app';
import { createTokenVerifier } from '../api/http/auth';
import { createServiceTokens } from '../api/http/service-tokens';
import { buildAreaRoutes } from '../api/routes';
import { parseConfig } from '../config/config';
import { createLogger } from '../config/logger';
import { createDataSource } from '../db/data-source';
import { CONSOLE_ASSETS_DIR } from './console-build';

export function serviceOpenApiDocument(env: NodeJS.ProcessEnv = { PUBLIC_BASE_URL: 'http://localhost:8080' }): Record<string, unknown> {
  const config = parseConfig(env);
  // Neither dials: a lazy connection and a data source that is never initialized.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const dataSource = createDataSource('postgres://openapi@127.0.0.1:1/none', 1);
  const app = createApp({
    config,
    logger: createLogger('silent'),
    verifier: createTokenVerifier({ kind: 'hs256', secret: new Uint8Array(32) }),
    readiness: {},
    routes: buildAreaRoutes({
      config,
      dataSource,
      temporal,
      encryptionKey: Buffer.alloc(32),
      serviceTokens: createServiceTokens(new Uint8Array(32)),
    }),
    console: { assetsDir: CONSOLE_ASSETS_DIR, dataSource },
  });
  return app.openApiDocument();
}
