/**
 * Console sign-in through the team's OpenID Connect issuer (authorization code
 * with PKCE): the sign-in page asks whether it is offered, `login` sends the
 * browser to the issuer, and `callback` verifies what comes back and sets the
 * console's session cookie with a token the service mints itself for the
 * mapped identity. Every failure lands on the sign-in page with its reason and
 * nothing signed in.
 */
import { Type } from '@sinclair/typebox';
import { decodeJwt } from 'jose';
import type { Logger } from '../../config/logger';
import { defineRoute, type AppContext, type RouteDefinition } from '../http/route';
import { setSessionCookie, setSessionOrigin } from '../http/session-cookie';
import type { OidcClient } from './oidc-client';
import { identityFromClaims, type OidcIdentity } from './oidc-claims';
import { failureLocation, OidcFailure } from './oidc-failures';
import { clearTransactionCookie, readTransactionCookie, setTransactionCookie } from './oidc-transaction';

export interface OidcSignInDeps {
  client: OidcClient;
  /** Signs the transaction cookie; the same on every replica (oidc-transaction.ts, transactionKey). */
  transactionKey: Uint8Array;
  /** A session token the API accepts for the identity, signed with the service's own key. */
  mint(identity: OidcIdentity): Promise<string>;
}

export const OIDC_LOGIN_PATH = '/console/oidc/login';
const tags = ['Console'];
const CONSOLE_PATH = /^\/console(\/[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*)?$/;

const OidcOffer = Type.Object({
  enabled: Type.Boolean(),
  providerName: Type.Optional(Type.String()),
  loginPath: Type.Optional(Type.String()),
});

export function consoleOidcRoutes(oidc: OidcSignInDeps | undefined, logger?: Logger): RouteDefinition[] {
  const offer = defineRoute({
    method: 'get',
    path: '/console/oidc',
    operationId: 'getConsoleOidcOffer',
    summary: 'Whether the console offers sign-in through an OpenID Connect issuer, and under which name',
    tags,
    access: { public: 'the sign-in page asks before anyone is signed in; it names only the configured provider' },
    responses: { 200: { description: 'What the sign-in page offers', schema: OidcOffer } },
    handler: () => ({
      status: 200,
      body: oidc ? { enabled: true, providerName: oidc.client.settings.providerName, loginPath: OIDC_LOGIN_PATH } : { enabled: false },
      headers: { 'cache-control': 'no-store' },
    }),
  });
  if (!oidc) return [offer];

  /** Sends the browser back to the sign-in page with the failure's code; logs why for the operator. */
  const fail = (ctx: AppContext, error: unknown) => {
    clearTransactionCookie(ctx);
    if (!(error instanceof OidcFailure)) throw error;
    logger?.warn({ code: error.code, reason: error.message, requestId: ctx.state.requestId }, 'console OIDC sign-in failed');
    return redirect(failureLocation(error));
  };

  return [
    offer,
    defineRoute({
      method: 'get',
      path: OIDC_LOGIN_PATH,
      operationId: 'beginConsoleOidcSignIn',
      summary: 'Start signing in to the console at the OpenID Connect issuer (redirects there)',
      description:
        'Answers 302 to the issuer’s authorization endpoint with state, nonce and a PKCE challenge, kept in a short-lived signed HttpOnly cookie. `return_to` is the console path to land on afterwards.',
      tags,
      access: { public: 'starts a sign-in: carries no credential and grants nothing until the issuer vouches for the caller' },
      query: Type.Object({ return_to: Type.Optional(Type.String({ maxLength: 2000 })) }),
      responses: { 302: { description: 'To the issuer (or back to the sign-in page when the issuer cannot be reached)' } },
      async handler({ query, ctx }) {
        const returnTo = query.return_to !== undefined && CONSOLE_PATH.test(query.return_to) ? query.return_to : '/console/';
        try {
          const { url, transaction } = await oidc.client.begin(returnTo);
          await setTransactionCookie(ctx, oidc.transactionKey, transaction);
          return redirect(url);
        } catch (error) {
          return fail(ctx, error);
        }
      },
    }),
    defineRoute({
      method: 'get',
      path: '/console/oidc/callback',
      operationId: 'finishConsoleOidcSignIn',
      summary: 'Where the OpenID Connect issuer sends the browser back (sets the console session, redirects into the console)',
      description:
        'Checks state against the transaction cookie, exchanges the code with the PKCE verifier, verifies the ID token (issuer, audience, nonce, expiry, signature) and maps its claims to the user id, organization and user type (OIDC_*_CLAIM). Any failure redirects to /console/sign-in#error=CODE, nothing signed in.',
      tags,
      access: { public: 'the issuer’s redirect: the code, the state and the transaction cookie are the credential, all verified here' },
      // The issuer adds its own parameters (iss, session_state, …): only their length is bounded here.
      query: Type.Object(
        {
          code: Type.Optional(Type.String({ maxLength: 4096 })),
          state: Type.Optional(Type.String({ maxLength: 4096 })),
          error: Type.Optional(Type.String({ maxLength: 200 })),
        },
        { additionalProperties: Type.String({ maxLength: 4096 }) },
      ),
      responses: { 302: { description: 'Into the console when signed in, else to the sign-in page with the failure’s code' } },
      async handler({ ctx }) {
        try {
          const transaction = await readTransactionCookie(ctx, oidc.transactionKey);
          const claims = await oidc.client.finish(new URLSearchParams(ctx.querystring), transaction);
          const identity = identityFromClaims(claims, oidc.client.settings.claims);
          const token = await oidc.mint(identity);
          const expiresAt = new Date((decodeJwt(token).exp ?? 0) * 1000);
          clearTransactionCookie(ctx);
          setSessionCookie(ctx, token, expiresAt);
          setSessionOrigin(ctx, 'oidc', expiresAt);
          logger?.info({ userId: identity.userId, organizationId: identity.organizationId }, 'console OIDC sign-in');
          return redirect(transaction.returnTo);
        } catch (error) {
          return fail(ctx, error);
        }
      },
    }),
  ];
}

const redirect = (location: string) => ({ status: 302, headers: { location, 'cache-control': 'no-store' } });
