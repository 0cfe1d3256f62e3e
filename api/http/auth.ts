/**
 * Bearer-token authentication with jose: HS256 with a shared secret, or RS256
 * (and the other asymmetric algorithms a JWKS may list) through a remote JWKS.
 * Only the configured algorithms are accepted, so `alg: none` and algorithm
 * confusion fail verification. Beside them, the service's own tokens
 * (api/http/service-tokens.ts) are told apart by their `iss` and verified only
 * with the service key and HS256.
 */
import { createSecretKey } from 'node:crypto';
import { SignJWT, createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { unauthorized } from './errors';
import { SERVICE_TOKEN_ISSUER, type ServiceTokens, type TokenGrant } from './service-tokens';

export type { TokenGrant } from './service-tokens';

export type UserType = 'person' | 'service_account';

export interface AuthContext {
  /** `sub` claim: a canonical decimal string (see {@link canonicalId}). */
  userId: string;
  /** `organization_id` claim: a canonical decimal string. */
  organizationId: string;
  userType: UserType;
  /** Only in a service token minted for an API key: the key's grants, which narrow the user's (api/access). */
  grants?: TokenGrant[];
  /** Only in a service token minted for an API key: the key's id. */
  apiKeyId?: string;
}

export interface TokenVerifier {
  verify(token: string): Promise<AuthContext>;
}

export type AuthKeys = { kind: 'hs256'; secret: Uint8Array } | { kind: 'jwks'; url: string };

/** Claims checked besides the signature when configured (`AUTH_JWT_AUDIENCE`, `AUTH_JWT_ISSUER`). */
export interface ExpectedClaims {
  audience?: string;
  issuer?: string;
}

export function createTokenVerifier(keys: AuthKeys, expected: ExpectedClaims = {}, service?: ServiceTokens): TokenVerifier {
  if (service && expected.issuer === SERVICE_TOKEN_ISSUER) throw new Error(`AUTH_JWT_ISSUER may not be ${SERVICE_TOKEN_ISSUER}`);
  // `exp` is required: a token that never expires cannot be taken back once leaked.
  const claimChecks = { requiredClaims: ['exp'], audience: expected.audience, issuer: expected.issuer };
  // A KeyObject made once: passing raw bytes makes jose import the key again on every request.
  const secretKey = keys.kind === 'hs256' ? createSecretKey(keys.secret) : undefined;
  const verifyJwt =
    keys.kind === 'hs256'
      ? (token: string) => jwtVerify(token, secretKey!, { algorithms: ['HS256'], ...claimChecks })
      : (() => {
          const jwks = createRemoteJWKSet(new URL(keys.url), { cacheMaxAge: 10 * 60_000, cooldownDuration: 30_000 });
          return (token: string) => jwtVerify(token, jwks, { algorithms: ['RS256', 'RS384', 'RS512', 'PS256', 'ES256'], ...claimChecks });
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
      const own = service !== undefined && issuerOf(token) === SERVICE_TOKEN_ISSUER;
      try {
        payload = own ? await service.verify(token) : (await verifyJwt(token)).payload;
      } catch (error) {
        throw unauthorized(describeJoseError(error));
      }
      const auth = own ? { ...claimsToAuth(payload), ...serviceClaims(payload) } : claimsToAuth(payload);
      if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string);
      verified.set(token, { auth, until: Math.min(now + VERIFIED_CACHE_MS, (payload.exp as number) * 1000) });
      return auth;
    },
  };
}

/** The unverified `iss`, only to choose the verification; undefined when the token cannot be decoded. */
function issuerOf(token: string): string | undefined {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

/** Most grants a service token may carry (an API key holds at most as many). */
export const MAX_TOKEN_GRANTS = 100;

/** The claims only service tokens carry: an API key's id and grants, checked for shape. */
function serviceClaims(payload: JWTPayload): Pick<AuthContext, 'grants' | 'apiKeyId'> {
  const out: Pick<AuthContext, 'grants' | 'apiKeyId'> = {};
  if (payload.api_key_id !== undefined) {
    const id = canonicalId(payload.api_key_id);
    if (id === undefined) throw unauthorized('The bearer token has an invalid "api_key_id" claim.');
    out.apiKeyId = id;
  }
  if (payload.grants !== undefined) {
    const grants = payload.grants;
    const valid =
      Array.isArray(grants) &&
      grants.length <= MAX_TOKEN_GRANTS &&
      grants.every(
        (g: unknown) =>
          typeof g === 'object' &&
          g !== null &&
          typeof (g as TokenGrant).nrn === 'string' &&
          typeof (g as TokenGrant).role_slug === 'string' &&
          Array.isArray((g as TokenGrant).permissions) &&
          (g as TokenGrant).permissions.every((p) => typeof p === 'string'),
      );
    if (!valid) throw unauthorized('The bearer token has an invalid "grants" claim.');
    out.grants = (grants as TokenGrant[]).map((g) => ({ nrn: g.nrn, role_slug: g.role_slug, permissions: [...g.permissions] }));
  }
  return out;
}

const VERIFIED_CACHE_SIZE = 10_000;
const VERIFIED_CACHE_MS = 60_000;

function describeJoseError(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'The bearer token has expired.';
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'The bearer token signature is invalid.';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'The bearer token uses an algorithm that is not accepted.';
  if (error instanceof joseErrors.JWKSNoMatchingKey) return 'The bearer token was signed with an unknown key.';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return error.reason === 'missing'
      ? `The bearer token has no "${error.claim}" claim.`
      : `The bearer token has an invalid "${error.claim}" claim.`;
  }
  return 'The bearer token is malformed or cannot be verified.';
}

function claimsToAuth(payload: JWTPayload): AuthContext {
  const userId = canonicalId(payload.sub);
  if (userId === undefined) throw unauthorized('The bearer token needs a "sub" claim that is a positive integer user id.');
  const organizationId = canonicalId(payload.organization_id);
  if (organizationId === undefined) throw unauthorized('The bearer token needs a positive integer "organization_id" claim.');
  const type = payload.user_type ?? 'person';
  if (type !== 'person' && type !== 'service_account') {
    throw unauthorized('The bearer token "user_type" claim must be person or service_account.');
  }
  return { userId, organizationId, userType: type };
}

/** Largest id a PostgreSQL bigint column holds. */
const MAX_ID = 9223372036854775807n;

/**
 * Organization and user ids are compared as strings, so each has exactly one
 * spelling: a digit string without leading zeros (at most a bigint), or a JSON
 * number that is a safe integer (a larger number was already rounded by
 * JSON.parse, and two tenants would merge). Undefined for anything else.
 */
export function canonicalId(claim: unknown): string | undefined {
  if (typeof claim === 'number') return Number.isSafeInteger(claim) && claim > 0 ? String(claim) : undefined;
  if (typeof claim !== 'string' || !/^[1-9][0-9]{0,18}$/.test(claim)) return undefined;
  return BigInt(claim) <= MAX_ID ? claim : undefined;
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
  audience?: string;
  issuer?: string;
}

/** Signs an HS256 token the service accepts (used by `npm run token` and tests). */
export async function mintToken(options: MintOptions): Promise<string> {
  // A number when it is one exactly (what identity providers usually send), else the digit string.
  const org = Number(options.organizationId);
  const jwt = new SignJWT({ organization_id: Number.isSafeInteger(org) ? org : options.organizationId, user_type: options.userType })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(options.userId)
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '12h');
  if (options.audience !== undefined) jwt.setAudience(options.audience);
  if (options.issuer !== undefined) jwt.setIssuer(options.issuer);
  return jwt.sign(options.secret);
}
