/**
 * Routes are declared as data: method, path, schemas, responses and a handler.
 * The same declaration mounts the Koa route (with auth, body parsing and
 * validation) and produces its OpenAPI operation, so the document can never
 * drift from what the server validates.
 */
import type Router from '@koa/router';
import type { Static, TSchema } from '@sinclair/typebox';
import type { ParameterizedContext } from 'koa';
import { AuditTrail, type AuditActor } from '../audit/trail';
import { bearerToken, type AuthContext, type TokenVerifier } from './auth';
import { readBody, type BodyFormat } from './body';
import { sessionToken } from './session-cookie';
import type { Dialect } from './dialects';
import { unauthorized, validationFailed, type FieldError } from './errors';
import type { Permission } from './permissions';
import type { AccessTargets, TargetKind, TargetResolver } from '../access/targets';
import { unstorableParams } from './storable-text';
import { compileValidator } from './validation';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * A route's access rule. `permission`: a bearer token is required, and the permission is the
 * one checked on the route's target's NRN through the access module (api/access). With `on`,
 * the route layer checks it on that target (api/access/targets.ts) before the handler runs and
 * hands the handler the authorized row as `target`; `also` names permissions needed on the same
 * target first. Without `on`, the handler checks it (it receives it as `permission`, so the
 * check and the declaration cannot drift), and `inHandler` says why: a target named by the body,
 * an alias or revision choice, or an answer that decides who may act. `public`: no token, and
 * the reason anyone may call it (health checks, webhook ingress whose URL token is the
 * capability, …).
 */
export type RouteAccess =
  { permission: Permission; on: TargetKind; also?: Permission[] } | { permission: Permission; inHandler?: string } | { public: string };

/** What a handler receives as `target`: the authorized row of the route's declared `on`. */
export type TargetOf<A> = A extends { on: infer K extends TargetKind } ? AccessTargets[K] : undefined;

/**
 * What a route's write is, in the audit trail (docs/security.md, "Audit trail"): the `action` it records
 * (dotted, e.g. `workflow.definition.create`), or why it records nothing (`none`: validation only, the
 * console's own session, …). Required on every route that is not a GET: mounting one without it fails.
 */
export type RouteAudit = { action: string; also?: string[] } | { none: string };

export function needsToken(route: Pick<RouteDefinition, 'access'>): boolean {
  return 'permission' in route.access;
}

export interface AppState {
  /** The server's own id of the request (request-context.ts). */
  requestId: string;
  /** The client's `X-Request-Id`, when it sent a sane one. */
  clientRequestId?: string;
  /** Where the request came from (through trusted proxies only: client-address.ts). */
  clientAddress?: string;
  /** The error dialect of the matched route's family (unmatched requests: see dialects.ts). */
  dialect?: Dialect;
  auth?: AuthContext;
  /** The request body as received, when the route read one. */
  rawBody?: string;
}
export type AppContext = ParameterizedContext<AppState>;

export interface ResponseSpec {
  description: string;
  schema?: TSchema;
  /** Defaults to application/json. */
  contentType?: string;
}

export interface HandlerInput<P, Q, B, T = unknown> {
  params: P;
  query: Q;
  body: B;
  /** Present on every route whose access names a permission. */
  auth: AuthContext;
  /** The permission the route declares (present with `auth`): what the handler checks on its target. */
  permission: Permission;
  /** The authorized row of the route's `access.on`, checked before the handler ran (undefined without `on`). */
  target: T;
  /** The request's audit trail: records the route's declared action in the change's transaction (api/audit/trail.ts). */
  audit: AuditTrail;
  ctx: AppContext;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Resolved<T extends TSchema | undefined> = T extends TSchema ? Static<T> : undefined;

export interface RouteDefinition<
  P extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  B extends TSchema | undefined = TSchema | undefined,
  A extends RouteAccess = RouteAccess,
> {
  method: HttpMethod;
  /** OpenAPI-style path, e.g. `/workflows/definitions/{id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Who may call it: a token holding a permission, or anyone, for a stated reason. Required: mounting a route without it fails. */
  access: A;
  /** What the route records in the audit trail. Required unless the method is GET. */
  audit?: RouteAudit;
  /** The error dialect of its route family, stamped by the area that owns it (`withDialect`). */
  dialect?: Dialect;
  /** What resolves `access.on`, stamped by the area that owns the route (`withAccessTargets`). */
  targets?: TargetResolver;
  params?: P;
  query?: Q;
  body?: B;
  /** Body formats accepted (default JSON only). */
  bodyFormats?: BodyFormat[];
  /** When true, an empty body is allowed even though a body schema is declared. */
  bodyOptional?: boolean;
  responses: Record<number, ResponseSpec>;
  /** Error statuses this route may answer besides the ones implied by its declaration. */
  errors?: number[];
  /**
   * Returns the response, or nothing when it wrote `ctx` itself (streams, HTML).
   */
  handler(input: HandlerInput<Resolved<P>, Resolved<Q>, Resolved<B>, TargetOf<A>>): Promise<HandlerResult | void> | HandlerResult | void;
}

/** Identity function that lets TypeScript infer the handler's input types from the schemas and the access target. */
export function defineRoute<
  P extends TSchema | undefined,
  Q extends TSchema | undefined,
  B extends TSchema | undefined,
  A extends RouteAccess,
>(route: RouteDefinition<P, Q, B, A>): RouteDefinition {
  return route;
}

/** `/a/{id}/b` → `/a/:id/b` */
export function koaPath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export interface MountOptions {
  verifier: TokenVerifier;
  bodyLimitBytes: number;
  /** BODY_MAX_DEPTH (config/limits.ts). */
  bodyMaxDepth: number;
  /** This process's name in the audit trail (REPLICA_ID). */
  replica: string;
}

export function mountRoutes(router: Router<AppState>, routes: RouteDefinition[], options: MountOptions): void {
  for (const route of routes) assertAccessDeclared(route);
  for (const route of routes) assertTargetsStamped(route);
  for (const route of routes) assertAuditDeclared(route);
  for (const route of routes) {
    router.register(koaPath(route.path), [route.method.toUpperCase()], createHandler(route, options), {
      name: route.operationId,
    });
  }
}

/** Authorization is structural: a route that names neither a permission nor why it is public is refused at start-up. */
export function assertAccessDeclared(route: RouteDefinition): void {
  const access = route.access as Partial<{ permission: unknown; public: unknown }> | undefined;
  const named =
    access !== undefined &&
    (typeof access.permission === 'string'
      ? /^[a-z_]+:[a-z]+$/.test(access.permission)
      : typeof access.public === 'string' && access.public.trim() !== '');
  if (!named) {
    throw new Error(
      `route ${route.method.toUpperCase()} ${route.path} (${route.operationId}) declares no access: name its permission or why it is public`,
    );
  }
}

/** A route that declares its target needs the area's resolver for it, else it would run unchecked. */
export function assertTargetsStamped(route: RouteDefinition): void {
  if ('on' in route.access && route.targets === undefined) {
    throw new Error(
      `route ${route.method.toUpperCase()} ${route.path} (${route.operationId}) declares access on ${route.access.on} but its area stamped no target resolver (withAccessTargets)`,
    );
  }
}

/** Auditing is structural too: a write route that names neither its audit action nor why it records nothing is refused at start-up. */
export function assertAuditDeclared(route: RouteDefinition): void {
  const audit = route.audit as Partial<{ action: unknown; also: unknown; none: unknown }> | undefined;
  if (audit === undefined && route.method === 'get') return;
  const dotted = (action: unknown) => typeof action === 'string' && /^[a-z_]+(\.[a-z_]+)+$/.test(action);
  const named =
    audit !== undefined &&
    (audit.action !== undefined
      ? dotted(audit.action) && (audit.also === undefined || (Array.isArray(audit.also) && audit.also.every(dotted)))
      : typeof audit.none === 'string' && audit.none.trim() !== '');
  if (!named) {
    throw new Error(
      `route ${route.method.toUpperCase()} ${route.path} (${route.operationId}) declares no audit: name the action it records or why it records nothing`,
    );
  }
}

/** The audit actor of a token: a person or a service account. */
export function tokenActor(auth: AuthContext): AuditActor {
  return { kind: auth.userType === 'service_account' ? 'service_token' : 'user', id: auth.userId };
}

/** Stamps the resolver of declared access targets (api/access/targets.ts) on an area's declarations. */
export function withAccessTargets(targets: TargetResolver, routes: RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) => ({ ...route, targets }));
}

/** Stamps the error dialect of a route family on its declarations. */
export function withDialect(dialect: Dialect, routes: RouteDefinition[]): RouteDefinition[] {
  return routes.map((route) => ({ ...route, dialect }));
}

function createHandler(route: RouteDefinition, options: MountOptions) {
  const validateParams = route.params ? compileValidator(route.params, 'params') : undefined;
  const validateQuery = route.query ? compileValidator(route.query, 'params') : undefined;
  const validateBody = route.body ? compileValidator(route.body, 'body') : undefined;
  const formats = route.bodyFormats ?? ['json'];

  return async (ctx: AppContext & { params: Record<string, string> }) => {
    if (route.dialect) ctx.state.dialect = route.dialect;
    let auth: AuthContext | undefined;
    if (needsToken(route)) {
      // The Authorization header wins; without one, the console's session cookie (CSRF-checked on writes).
      const token = bearerToken(ctx.get('authorization')) ?? sessionToken(ctx);
      if (token === undefined) throw unauthorized();
      auth = await options.verifier.verify(token);
      ctx.state.auth = auth;
    }

    const params: Record<string, unknown> = { ...ctx.params };
    const query: Record<string, unknown> = { ...ctx.query };
    // Before the route's own checks: a value PostgreSQL refuses must not reach a lookup (a 500 otherwise).
    const unstorable = [...unstorableParams(params, 'params'), ...unstorableParams(query, 'query')];
    if (unstorable.length > 0) throw validationFailed(unstorable);
    const errors: FieldError[] = [];
    if (validateParams) errors.push(...validateParams(params).map(prefixed('/params')));
    if (validateQuery) errors.push(...validateQuery(query).map(prefixed('/query')));

    let body: unknown;
    if (route.body) {
      body = await readBody(ctx, { bytes: options.bodyLimitBytes, depth: options.bodyMaxDepth }, formats);
      if (body === undefined && !route.bodyOptional) errors.push({ path: '', message: 'a request body is required' });
      else if (body !== undefined && validateBody) errors.push(...validateBody(body));
    }
    if (errors.length > 0) throw validationFailed(errors);

    const permission = ('permission' in route.access ? route.access.permission : undefined) as Permission;
    const target =
      'on' in route.access && auth
        ? await route.targets!(route.access.on, { auth, permission, also: route.access.also ?? [], params, dialect: route.dialect })
        : undefined;
    const audit = new AuditTrail({
      action: route.audit && 'action' in route.audit ? route.audit.action : undefined,
      also: route.audit && 'action' in route.audit ? route.audit.also : undefined,
      requestId: ctx.state.requestId,
      clientRequestId: ctx.state.clientRequestId,
      clientAddress: ctx.state.clientAddress,
      replica: options.replica,
      actor: auth && tokenActor(auth),
      organizationId: auth?.organizationId,
      apiKeyId: auth?.apiKeyId,
    });
    const result = await route.handler({ params, query, body, auth: auth as AuthContext, permission, target, audit, ctx });
    if (result) {
      ctx.status = result.status;
      if (result.headers) ctx.set(result.headers);
      if (result.body !== undefined) ctx.body = result.body;
    }
  };
}

const prefixed =
  (prefix: string) =>
  (error: FieldError): FieldError => ({ ...error, path: prefix + error.path });
