/**
 * The console's session: sign in with a bearer token or a one-time code (the
 * answer sets the HttpOnly session cookie), read who is signed in, sign out, and
 * list what the caller may do on one NRN so the console can hide what it may not.
 * Nothing here grants more than the token does: the cookie carries the token.
 */
import { Type } from '@sinclair/typebox';
import { decodeJwt } from 'jose';
import type { DataSource } from 'typeorm';
import type { Logger } from '../../config/logger';
import { loadAccess } from '../access/access';
import { canonicalNrn } from '../access/nrn';
import { bearerToken, type AuthContext, type TokenVerifier } from '../http/auth';
import { unauthorized, validationFailed } from '../http/errors';
import type { Permission, Resource, Verb } from '../http/permissions';
import { defineRoute, type AppContext, type RouteDefinition } from '../http/route';
import { assertSameOriginWrite, clearSessionCookie, sessionOrigin, sessionToken, setSessionCookie } from '../http/session-cookie';
import { consoleOidcRoutes, type OidcSignInDeps } from './oidc-routes';
import type { SignInCodes, SignInIdentity } from './sign-in-codes';

export interface ConsoleSessionDeps {
  verifier: TokenVerifier;
  dataSource: DataSource;
  /** Development sign-in links: the codes `npm start` printed, and how to mint a token for one. */
  signIn?: { codes: SignInCodes; mint(identity: SignInIdentity): Promise<string> };
  /** Sign-in through the team's OpenID Connect issuer (OIDC_*), when configured. */
  oidc?: OidcSignInDeps;
  logger?: Logger;
}

const RESOURCES: Resource[] = ['workflow', 'execution', 'config'];
const VERBS: Verb[] = ['read', 'write', 'execute', 'signal', 'cancel'];
/** What the administration pages ask about (show the Administration link, the grant form, revoke, save values). */
const ADMIN_RESOURCES: Resource[] = ['account', 'user', 'grant', 'role', 'service_specification', 'provider_specification'];
const CONSOLE_PERMISSIONS = [
  ...RESOURCES.flatMap((r) => VERBS.map((v): Permission => `${r}:${v}`)),
  ...ADMIN_RESOURCES.flatMap((r) => (['read', 'write'] as const).map((v): Permission => `${r}:${v}`)),
];

/** Browsers drop cookies above about 4 KB: a longer token is refused here instead of silently signing nobody in. */
export const MAX_COOKIE_TOKEN_LENGTH = 3800;

const Session = Type.Object({
  userId: Type.String(),
  organizationId: Type.String(),
  userType: Type.String(),
  expiresAt: Type.Optional(Type.String({ format: 'date-time' })),
});
const tags = ['Console'];

export function consoleSessionRoutes(deps: ConsoleSessionDeps): RouteDefinition[] {
  /** The caller of a console request: its bearer token, else its session cookie. */
  const caller = async (ctx: AppContext): Promise<{ auth: AuthContext; token: string }> => {
    const token = bearerToken(ctx.get('authorization')) ?? sessionToken(ctx);
    if (token === undefined) throw unauthorized('Not signed in.');
    return { auth: await deps.verifier.verify(token), token };
  };

  return [
    defineRoute({
      method: 'post',
      path: '/console/session',
      operationId: 'signInToConsole',
      summary: 'Sign in to the console with a bearer token or a one-time sign-in code',
      description:
        'Body {token} or {code}. Sets an HttpOnly, SameSite=Strict session cookie that authenticates later requests like the token. Needs the x-console-request: 1 header.',
      tags,
      access: { public: 'sign-in: the body carries the credential (a token, or a one-time code printed by npm start)' },
      audit: { none: "sets the caller's own session cookie: nothing is stored on the server" },
      body: Type.Object(
        {
          token: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_COOKIE_TOKEN_LENGTH })),
          code: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
        },
        { additionalProperties: false },
      ),
      responses: { 200: { description: 'Signed in', schema: Session } },
      errors: [401, 403],
      async handler({ body, ctx }) {
        assertSameOriginWrite(ctx);
        if ((body.token === undefined) === (body.code === undefined)) {
          throw validationFailed([{ path: '', message: 'send exactly one of token or code' }]);
        }
        let token = body.token;
        if (body.code !== undefined) {
          const identity = deps.signIn?.codes.redeem(body.code);
          if (!identity || !deps.signIn)
            throw unauthorized('This sign-in link is unknown, used or expired: restart npm start for a new one, or paste a token.');
          token = await deps.signIn.mint(identity);
        }
        const auth = await deps.verifier.verify(token!);
        const expiresAt = new Date((decodeJwt(token!).exp ?? 0) * 1000);
        setSessionCookie(ctx, token!, expiresAt);
        return { status: 200, body: sessionJson(auth, expiresAt) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/console/session',
      operationId: 'getConsoleSession',
      summary: 'Who is signed in to the console',
      tags,
      access: { public: 'answers only about the caller’s own credential, which it verifies itself (401 without one)' },
      responses: { 200: { description: 'The signed-in caller', schema: Session } },
      errors: [401],
      async handler({ ctx }) {
        const { auth, token } = await caller(ctx);
        const exp = decodeJwt(token).exp;
        return { status: 200, body: sessionJson(auth, exp === undefined ? undefined : new Date(exp * 1000)) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/console/session',
      operationId: 'signOutOfConsole',
      summary: 'Sign out of the console (clears the session cookie)',
      description:
        'A session made through the OpenID Connect issuer answers 200 with `endSessionUrl` when the issuer advertises an end_session_endpoint: the console sends the browser there to end the issuer’s session too.',
      tags,
      access: { public: 'only clears the caller’s own cookie' },
      audit: { none: "clears the caller's own session cookie: nothing is stored on the server" },
      responses: {
        200: { description: 'Signed out; end the issuer’s session there', schema: Type.Object({ endSessionUrl: Type.String() }) },
        204: { description: 'Signed out' },
      },
      async handler({ ctx }) {
        assertSameOriginWrite(ctx);
        const viaIssuer = deps.oidc !== undefined && sessionOrigin(ctx) === 'oidc';
        clearSessionCookie(ctx);
        const endSessionUrl = viaIssuer ? await deps.oidc!.client.endSessionUrl().catch(() => undefined) : undefined;
        return endSessionUrl === undefined ? { status: 204 } : { status: 200, body: { endSessionUrl } };
      },
    }),
    ...consoleOidcRoutes(deps.oidc, deps.logger),
    defineRoute({
      method: 'get',
      path: '/console/session/permissions',
      operationId: 'getConsolePermissions',
      summary: 'The engine and administration permissions the caller holds on one NRN',
      description: 'Lets the console hide actions the caller may not take; the API still checks every request.',
      tags,
      access: { public: 'answers only about the caller’s own grants, after verifying its credential (401 without one)' },
      query: Type.Object({ nrn: Type.String({ minLength: 1, maxLength: 200 }) }),
      responses: {
        200: { description: 'Permissions held', schema: Type.Object({ nrn: Type.String(), permissions: Type.Array(Type.String()) }) },
      },
      errors: [401],
      async handler({ query, ctx }) {
        const { auth } = await caller(ctx);
        const nrn = canonicalNrn(query.nrn);
        if (nrn === undefined) throw validationFailed([{ path: '/query/nrn', message: 'must be an NRN such as organization=1' }]);
        const access = await loadAccess(deps.dataSource, auth);
        return { status: 200, body: { nrn, permissions: CONSOLE_PERMISSIONS.filter((p) => access.can(p, nrn)) } };
      },
    }),
  ];
}

function sessionJson(auth: AuthContext, expiresAt: Date | undefined) {
  return {
    userId: auth.userId,
    organizationId: auth.organizationId,
    userType: auth.userType,
    ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
  };
}
