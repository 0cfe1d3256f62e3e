/**
 * Bearer-token authentication with jose: HS256 with a shared secret, or RS256
 * (and the other asymmetric algorithms a JWKS may list) through a remote JWKS.
 * Only the configured algorithms are accepted, so `alg: none` and algorithm
 * confusion fail verification.
 */
import { createSecretKey } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { unauthorized } from './errors';

export type UserType = 'person' | 'service_account';

export interface AuthContext {
  /** `sub` claim. */
  userId: string;
  /** `organization_id` claim, as a decimal string. */
  organizationId: string;
  userType: UserType;
}

export interface TokenVerifier {
  verify(token: string): Promise<AuthContext>;
}

export type AuthKeys = { kind: 'hs256'; secret: Uint8Array } | { kind: 'jwks'; url: string };

export function createTokenVerifier(keys: AuthKeys): TokenVerifier {
  // A KeyObject made once: passing raw bytes makes jose import the key again on every request.
  const secretKey = keys.kind === 'hs256' ? createSecretKey(keys.secret) : undefined;
  const verifyJwt =
    keys.kind === 'hs256'
      ? (token: string) => jwtVerify(token, secretKey!, { algorithms: ['HS256'] })
      : (() => {
          const jwks = createRemoteJWKSet(new URL(keys.url), { cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000 });
          return (token: string) => jwtVerify(token, jwks, { algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256'] });
        })();

  // Clients send the same token on every request: remember verified tokens briefly instead of
  // recomputing the signature each time. An entry never outlives the token's `exp`, nor one minute
  // (so a key rotated out of the JWKS stops working soon).
  const verified = new Map<string, { auth: AuthContext; until: number }>();
  return {
    async verify(token) {
      const now = Date.now();
      const hit = verified.get(token);
      if (hit && hit.until > now) return hit.auth;
      let payload: JWTPayload;
      try {
        ({ payload } = await verifyJwt(token));
      } catch (error) {
        throw unauthorized(describeJoseError(error));
      }
      const auth = claimsToAuth(payload);
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      verified.set(token, { auth, until: Math.min(now + VERIFIED_CACHE_MS, payload.exp === undefined ? Infinity : payload.exp * 1000) });
      return auth;
    },
  };
}

const VERIFIED_CACHE_SIZE = 10_000;
const VERIFIED_CACHE_MS = 60_000;

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The bearer token has expired.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The bearer token signature is invalid.';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The bearer token uses an algorithm that is not accepted.';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The bearer token was signed with an unknown key.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) return `The bearer token has an invalid "${error.claim}" claim.`;
  return 'The bearer token is malformed or cannot be verified.';
}

function claimsToAuth(payload: JWTPayload): AuthContext {
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub.trim() === '') throw unauthorized('The bearer token has no "sub" claim.');
  const org = payload.organization_id;
  const organizationId = typeof org === 'number' ? String(org) : org;
  if (typeof organizationId !== 'string' || !/^[0-9]{1,18}$/.test(organizationId)) {
    throw unauthorized('The bearer token needs an integer "organization_id" claim.');
  }
  const type = payload.user_type ?? 'person';
  if (type !== 'person' && type !== 'service_account') {
    throw unauthorized('The bearer token "user_type" claim must be person or service_account.');
  }
  return { userId: sub, organizationId: String(Number(organizationId)), userType: type };
}

/** Reads `Authorization: Bearer <token>`; undefined when the header is absent. */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const match = /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(header.trim());
  if (!match) throw unauthorized('The Authorization header must be "Bearer <token>".');
  return match[1];
}

export interface MintOptions {
  userId: string;
  organizationId: string;
  userType: UserType;
  secret: Uint8Array;
  expiresIn?: string | number;
}

/** Signs an HS256 token the service accepts (used by `npm run token` and tests). */
export async function mintToken(options: MintOptions): Promise<string> {
  return new SignJWT({ organization_id: Number(options.organizationId), user_type: options.userType })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.userId)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '12h')
    .sign(options.secret);
}
