/**
 * Operational endpoints, all anonymous: liveness, readiness, Prometheus
 * metrics, the OpenAPI document, the API reference page and the pages problem
 * `type` URIs name.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { Logger } from '../../config/logger';
import { notFound } from '../http/errors';
import { defineRoute, type HandlerResult, type RouteDefinition } from '../http/route';
import { ERROR_PAGE_HEADERS, errorCatalog, errorIndexPage, errorPage } from './error-pages';
import type { HttpMetrics } from './metrics';

/** A dependency check; `kind` says which implementation answers (for Temporal: `cli`, `stand-in` or `configured`). */
export type ReadinessCheck = (() => Promise<void>) & { kind?: string };
export type ReadinessChecks = Record<string, ReadinessCheck>;

export interface OpsDeps {
  metrics: HttpMetrics;
  readiness: ReadinessChecks;
  /** Where a failing check's reason goes (the anonymous answer only says `failing`). */
  logger: Logger;
  /** Built lazily, once, after every route is registered. */
  openApiDocument: () => Record<string, unknown>;
  readinessTimeoutMs?: number;
}

const DOC_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};
const swaggerUiDir = path.dirname(require.resolve('swagger-ui-dist/package.json'));

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Platform API reference</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/docs-init.js"></script>
</body>
</html>
`;
/**
 * The reference page's security headers, as the console's (api/console/static-assets.ts): its own
 * scripts only (the page has no inline script), no framing, no sniffing. Swagger UI sets inline
 * styles and draws data: images, which the policy allows.
 */
const DOCS_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });\n`;

/**
 * Each dependency answers `ok` or `failing`, nothing more: `/ready` is anonymous, and
 * error messages and implementation kinds (hosts, ports, versions) help an attacker
 * more than a load balancer. The reason is logged.
 */
const CheckResult = Type.Union([Type.Literal('ok'), Type.Literal('failing')]);
type CheckOutcome = 'ok' | 'failing';
const ReadyBody = Type.Object({
  status: Type.Union([Type.Literal('ready'), Type.Literal('unavailable')]),
  checks: Type.Record(Type.String(), CheckResult),
});

export function opsRoutes(deps: OpsDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/health',
      operationId: 'getHealth',
      summary: 'Liveness: the process is up and serving HTTP.',
      tags: ['operations'],
      access: { public: 'liveness probe for orchestrators; answers nothing about tenants' },
      responses: { 200: { description: 'Alive', schema: Type.Object({ status: Type.Literal('ok') }) } },
      handler: () => ({ status: 200, body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/ready',
      operationId: 'getReady',
      summary: 'Readiness: PostgreSQL and Temporal answer.',
      tags: ['operations'],
      access: { public: 'readiness probe for orchestrators and load balancers; names dependencies, no tenant data' },
      responses: {
        200: { description: 'Ready', schema: ReadyBody },
        503: { description: 'A dependency does not answer; `checks` names it (the reason is logged)', schema: ReadyBody },
      },
      handler: async () => {
        const entries = await Promise.all(
          Object.entries(deps.readiness).map(async ([name, check]): Promise<[string, CheckOutcome]> => {
            try {
              await withTimeout(check(), deps.readinessTimeoutMs ?? 3000);
              return [name, 'ok'];
            } catch (error) {
              deps.logger.warn(
                { dependency: name, kind: check.kind, reason: (error as Error).message || 'no answer' },
                'readiness check failing',
              );
              return [name, 'failing'];
            }
          }),
        );
        const ready = entries.every(([, result]) => result === 'ok');
        return { status: ready ? 200 : 503, body: { status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(entries) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/metrics',
      operationId: 'getMetrics',
      summary: 'Prometheus metrics.',
      tags: ['operations'],
      access: { public: 'Prometheus scraping; restrict it at the network edge' },
      responses: { 200: { description: 'Prometheus text exposition format', contentType: 'text/plain' } },
      handler: async () => ({
        status: 200,
        body: await deps.metrics.text(),
        headers: { 'Content-Type': deps.metrics.registry.contentType },
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/openapi.json',
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 document of this API.',
      tags: ['operations'],
      access: { public: 'the public API contract' },
      responses: {
        200: {
          description: 'OpenAPI document',
          schema: Type.Object({}, { additionalProperties: true, description: 'An OpenAPI 3.1 document (this one): free-form here' }),
        },
      },
      handler: () => ({ status: 200, body: deps.openApiDocument() }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs',
      operationId: 'getDocs',
      summary: 'Readable API reference, rendered from /openapi.json.',
      tags: ['operations'],
      access: { public: 'the API reference page, rendered from the public contract' },
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      handler: () => ({ status: 200, body: DOCS_HTML, headers: { ...DOCS_HEADERS, 'Content-Type': 'text/html; charset=utf-8' } }),
    }),
    defineRoute({
      method: 'get',
      path: '/docs/assets/{file}',
      operationId: 'getDocsAsset',
      summary: 'Static assets of the API reference page.',
      tags: ['operations'],
      access: { public: 'static assets of the API reference page' },
      params: Type.Object({ file: Type.String({ maxLength: 64 }) }),
      responses: { 200: { description: 'Asset', contentType: 'application/octet-stream' } },
      errors: [404],
      handler: async ({ params }): Promise<HandlerResult> => {
        if (params.file === 'docs-init.js') {
          return { status: 200, body: DOCS_INIT, headers: { ...DOCS_HEADERS, 'Content-Type': 'application/javascript; charset=utf-8' } };
        }
        const type = Object.hasOwn(DOC_ASSETS, params.file) ? DOC_ASSETS[params.file] : undefined;
        if (!type) throw notFound(`No documentation asset named "${params.file}".`);
        return {
          status: 200,
          body: await readFile(path.join(swaggerUiDir, params.file)),
          headers: { ...DOCS_HEADERS, 'Content-Type': type, 'Cache-Control': 'public, max-age=86400' },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/errors',
      operationId: 'listProblemTypes',
      summary: 'Every problem type the API answers with, each linking its page.',
      tags: ['operations'],
      access: { public: 'documentation of the error types, the same text as docs/errors.md' },
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      handler: async () => ({ status: 200, body: errorIndexPage(await errorCatalog()), headers: ERROR_PAGE_HEADERS }),
    }),
    defineRoute({
      method: 'get',
      path: '/errors/{type}',
      operationId: 'getProblemType',
      summary: 'The page a problem+json `type` URI names: what the error means and what to do.',
      tags: ['operations'],
      access: { public: 'documentation of one error type, the same text as docs/errors.md' },
      params: Type.Object({ type: Type.String({ pattern: '^[a-z0-9-]{1,64}$' }) }),
      responses: { 200: { description: 'HTML page', contentType: 'text/html' } },
      errors: [404],
      handler: async ({ params }): Promise<HandlerResult> => {
        const entry = (await errorCatalog()).entries.get(params.type);
        if (entry === undefined) throw notFound(`No problem type named "${params.type}"; GET /errors lists them.`);
        return { status: 200, body: errorPage(params.type, entry), headers: ERROR_PAGE_HEADERS };
      },
    }),
  ];
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
