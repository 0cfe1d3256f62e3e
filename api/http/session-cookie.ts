/**
 * The console's session cookie: an HttpOnly, SameSite=Strict cookie that holds
 * the caller's bearer token (a pasted one, or one minted for a one-time sign-in
 * code). A request without an Authorization header is authenticated by the
 * cookie exactly as by that token: same verifier, same permissions.
 *
 * Cross-site request forgery: SameSite=Strict keeps the browser from sending the
 * cookie from another site, and every cookie-authenticated write must also carry
 * the custom {@link CONSOLE_REQUEST_HEADER} (which a cross-origin page cannot add
 * without a CORS preflight this API never grants) and come from this origin when
 * the browser says where it comes from.
 */
import { forbidden } from './errors';
import type { Context } from 'koa';

type AppContext = Pick<Context, 'cookies' | 'method' | 'get' | 'protocol' | 'host' | 'secure'>;

export const SESSION_COOKIE = 'platform_console_session';
/** How the session was made, when sign-out has more to do than clear it (`oidc`: end the issuer's session too). */
export const SESSION_ORIGIN_COOKIE = 'platform_console_session_origin';
export type SessionOrigin = 'oidc';
export const CONSOLE_REQUEST_HEADER = 'x-console-request';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The token in the session cookie, after the CSRF checks for writes; undefined without a cookie. */
export function sessionToken(ctx: AppContext): string | undefined {
  const token = ctx.cookies.get(SESSION_COOKIE);
  if (token === undefined || token === '') return undefined;
  if (!SAFE_METHODS.has(ctx.method)) assertSameOriginWrite(ctx);
  return token;
}

/** Refuses a cookie-authenticated write that lacks the console header or comes from another origin. */
export function assertSameOriginWrite(ctx: AppContext): void {
  if (ctx.get(CONSOLE_REQUEST_HEADER) !== '1') {
    throw forbidden(`Writes authenticated by the console session cookie need the ${CONSOLE_REQUEST_HEADER}: 1 header.`);
  }
  const site = ctx.get('sec-fetch-site');
  if (site !== '' && site !== 'same-origin' && site !== 'none') throw forbidden('Cross-site writes are refused.');
  // (Koa 3's ctx.origin is the Origin header itself, so this origin is spelled out.)
  const origin = ctx.get('origin');
  if (origin !== '' && origin !== `${ctx.protocol}://${ctx.host}`) throw forbidden('Writes from another origin are refused.');
}

/** Sets the session cookie until the token expires (a session made another way than before forgets its origin). */
export function setSessionCookie(ctx: AppContext, token: string, expiresAt: Date): void {
  setCookie(ctx, SESSION_COOKIE, token, expiresAt);
  setCookie(ctx, SESSION_ORIGIN_COOKIE, '', new Date(0));
}

/** Records how the session just set was made (after {@link setSessionCookie}); it lasts as long as the session. */
export function setSessionOrigin(ctx: AppContext, origin: SessionOrigin, expiresAt: Date): void {
  setCookie(ctx, SESSION_ORIGIN_COOKIE, origin, expiresAt);
}

export function sessionOrigin(ctx: AppContext): SessionOrigin | undefined {
  return ctx.cookies.get(SESSION_ORIGIN_COOKIE) === 'oidc' ? 'oidc' : undefined;
}

export function clearSessionCookie(ctx: AppContext): void {
  setCookie(ctx, SESSION_COOKIE, '', new Date(0));
  setCookie(ctx, SESSION_ORIGIN_COOKIE, '', new Date(0));
}

function setCookie(ctx: AppContext, name: string, value: string, expires: Date): void {
  ctx.cookies.set(name, value, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/', expires, overwrite: true });
}
