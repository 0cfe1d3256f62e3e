/**
 * Builds the OpenAPI 3.1 document from the route declarations: the very
 * schemas Ajv validates with, plus the error responses of each route family.
 */
import type { TSchema } from '@sinclair/typebox';
import { unmatchedRouteDialect, type Dialect } from './dialects';
import { needsToken, type RouteDefinition } from './route';
import { AdminErrorSchema, ConfigErrorSchema, ProblemSchema } from './error-schemas';

type JsonObject = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  serverUrl: string;
}

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'The request is invalid.',
  401: 'A valid bearer token is missing.',
  403: 'The caller lacks the permission.',
  404: 'Not found.',
  405: 'Method not allowed.',
  409: 'Conflict with the current state.',
  413: 'The request body is too large.',
  415: 'Unsupported content type.',
  422: 'The request is well-formed but cannot be processed.',
  500: 'Internal error.',
  503: 'A dependency is unavailable.',
};

/** A response declared by its content type alone (HTML, metrics text, an event stream, a file) is a string of that type. */
const TEXT_BODY: JsonObject = { type: 'string' };

const ERROR_SCHEMA_NAMES: Record<Dialect, string> = { problem: 'Problem', config: 'ConfigError', admin: 'AdminError' };

export function buildOpenApiDocument(routes: RouteDefinition[], info: OpenApiInfo): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: info.title,
      version: info.version,
      description: info.description,
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: info.serverUrl }],
    paths,
    components: {
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      schemas: { Problem: plain(ProblemSchema), ConfigError: plain(ConfigErrorSchema), AdminError: plain(AdminErrorSchema) },
    },
  };
}

function operation(route: RouteDefinition): JsonObject {
  const op: JsonObject = {
    operationId: route.operationId,
    summary: route.summary,
    tags: route.tags,
  };
  if (route.description) op.description = route.description;
  op.security = needsToken(route) ? [{ bearerAuth: [] }] : [];
  if ('permission' in route.access) op['x-permission'] = route.access.permission;
  if (route.audit && 'action' in route.audit) op['x-audit-action'] = route.audit.action;

  const parameters = [...parametersOf(route.params, 'path'), ...parametersOf(route.query, 'query')];
  if (parameters.length > 0) op.parameters = parameters;

  if (route.body) {
    const schema = plain(route.body);
    const content: JsonObject = { 'application/json': { schema } };
    if (route.bodyFormats?.includes('yaml')) content['application/yaml'] = { schema };
    op.requestBody = { required: !route.bodyOptional, content };
  }

  const responses: JsonObject = {};
  for (const [status, spec] of Object.entries(route.responses)) {
    responses[status] = {
      description: spec.description,
      ...(spec.schema || spec.contentType
        ? { content: { [spec.contentType ?? 'application/json']: { schema: spec.schema ? plain(spec.schema) : TEXT_BODY } } }
        : {}),
    };
  }
  const dialect = route.dialect ?? unmatchedRouteDialect(route.path);
  for (const status of errorStatuses(route)) {
    // Config endpoints answer 5xx as problem details, like the rest of the workflow engine.
    const schemaName = dialect === 'config' && status >= 500 ? 'Problem' : ERROR_SCHEMA_NAMES[dialect];
    const contentType = schemaName === 'Problem' ? 'application/problem+json' : 'application/json';
    responses[String(status)] = {
      description: ERROR_DESCRIPTIONS[status] ?? 'Error.',
      content: { [contentType]: { schema: { $ref: `#/components/schemas/${schemaName}` } } },
    };
  }
  op.responses = responses;
  return op;
}

/** The error statuses a route can answer, derived from what it declares. */
export function errorStatuses(route: RouteDefinition): number[] {
  const statuses = new Set<number>(route.errors ?? []);
  if (route.params || route.query || route.body) statuses.add(400);
  if (route.body) {
    statuses.add(413);
    statuses.add(415);
  }
  // Every route that needs a token checks its permission on its target: 403 without it, 404 with nothing in the organization.
  if (needsToken(route)) for (const status of [401, 403, 404]) statuses.add(status);
  statuses.add(500);
  return [...statuses].sort((a, b) => a - b);
}

function parametersOf(schema: TSchema | undefined, where: 'path' | 'query'): JsonObject[] {
  if (!schema) return [];
  const properties = (schema.properties ?? {}) as Record<string, TSchema>;
  const required = new Set<string>((schema.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...rest } = plain(property);
    return {
      name,
      in: where,
      required: where === 'path' || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

/** Drops TypeBox's symbol keys and anything JSON cannot carry. */
function plain(schema: TSchema): JsonObject {
  return JSON.parse(JSON.stringify(schema)) as JsonObject;
}
