/**
 * One OpenID Connect sign-in in flight: its state, nonce and PKCE verifier, and
 * the console page to return to. They travel in a short-lived HttpOnly cookie
 * signed with a key every API replica derives from the same secret (not in one
 * process's memory), so the issuer's callback may land on any replica.
 *
 * The cookie is SameSite=Lax: the callback is a top-level navigation coming
 * from the issuer's site, on which a Strict cookie would not be sent.
 */
import { hkdfSync } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import type { Context } from 'koa';
import { transactionExpired } from './oidc-failures';

export const OIDC_TRANSACTION_COOKIE = 'platform_console_oidc';
/** Time from leaving for the issuer to coming back (a person typing a password, maybe a second factor). */
export const OIDC_TRANSACTION_TTL_SECONDS = 10 * 60;
const COOKIE_PATH = '/console/oidc';
const AUDIENCE = 'console-oidc-transaction';

export interface OidcTransaction {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A console path (`/console/...`) to land on once signed in. */
  returnTo: string;
}

type CookieContext = Pick<Context, 'cookies' | 'secure'>;

/** The transaction cookie's signing key, derived from a secret all replicas share (kept apart from that secret's own use). */
export function transactionKey(sharedSecret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', sharedSecret, new Uint8Array(0), 'platform console OIDC transaction cookie', 32));
}

export async function setTransactionCookie(ctx: CookieContext, key: Uint8Array, transaction: OidcTransaction): Promise<void> {
  const value = await new SignJWT({ ...transaction })
    .setProtectedHeader({ alg: 'HS256' })
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${OIDC_TRANSACTION_TTL_SECONDS}s`)
    .sign(key);
  ctx.cookies.set(OIDC_TRANSACTION_COOKIE, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: COOKIE_PATH,
    maxAge: OIDC_TRANSACTION_TTL_SECONDS * 1000,
    overwrite: true,
  });
}

/** The transaction this browser started; throws {@link transactionExpired} without a live, genuine one. */
export async function readTransactionCookie(ctx: CookieContext, key: Uint8Array): Promise<OidcTransaction> {
  const value = ctx.cookies.get(OIDC_TRANSACTION_COOKIE);
  if (value === undefined || value === '') throw transactionExpired('no cookie');
  try {
    const { payload } = await jwtVerify(value, key, { algorithms: ['HS256'], audience: AUDIENCE, requiredClaims: ['exp'] });
    const { state, nonce, codeVerifier, returnTo } = payload;
    if (typeof state !== 'string' || typeof nonce !== 'string' || typeof codeVerifier !== 'string' || typeof returnTo !== 'string') {
      throw new Error('incomplete');
    }
    return { state, nonce, codeVerifier, returnTo };
  } catch (error) {
    throw transactionExpired((error as Error).message);
  }
}

/** A transaction is used once: the callback clears it whatever the outcome. */
export function clearTransactionCookie(ctx: CookieContext): void {
  ctx.cookies.set(OIDC_TRANSACTION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path: COOKIE_PATH,
    expires: new Date(0),
    overwrite: true,
  });
}
