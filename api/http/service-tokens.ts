/**
 * Tokens the service mints itself (API-key exchange at POST /token, console
 * sign-in): HS256 under the service's own key and issuer, accepted in every
 * auth mode beside the tokens of the configured issuer (api/http/auth.ts picks
 * the verification by `iss`, each with its own key and algorithm list, so one
 * kind can never be passed off as the other).
 */
import { createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';

/** The `iss` of every service token; an external issuer configured with this name is refused at start-up. */
export const SERVICE_TOKEN_ISSUER = 'urn:platform-api:service';

/** One grant an API key's token carries: the role on the NRN, with the role's permissions when the token was minted. */
export interface TokenGrant {
  nrn: string;
  role_slug: string;
  permissions: string[];
}

/** Who a service token speaks for. `grants` narrow the user's grants (an API key's); `apiKeyId` names the key. */
export interface ServiceIdentity {
  userId: string;
  organizationId: string;
  userType: 'person' | 'service_account';
  grants?: TokenGrant[];
  apiKeyId?: string;
}

export interface ServiceTokens {
  /** A signed token for `identity`, valid `ttlSeconds` from now. */
  mint(identity: ServiceIdentity, ttlSeconds: number): Promise<string>;
  /** The verified claims of a service token; throws jose's errors like `jwtVerify`. */
  verify(token: string): Promise<JWTPayload>;
}

export function createServiceTokens(key: Uint8Array): ServiceTokens {
  if (key.byteLength < 32) throw new Error('the service token key must be at least 32 bytes');
  const secret: KeyObject = createSecretKey(key);
  return {
    mint: (identity, ttlSeconds) => mintServiceToken(secret, identity, ttlSeconds),
    verify: async (token) =>
      (await jwtVerify(token, secret, { algorithms: ['HS256'], issuer: SERVICE_TOKEN_ISSUER, requiredClaims: ['exp', 'sub'] })).payload,
  };
}

/** Signs a service token (claims as api/http/auth.ts reads them, plus `grants` and `api_key_id` when given). */
export async function mintServiceToken(key: KeyObject | Uint8Array, identity: ServiceIdentity, ttlSeconds: number): Promise<string> {
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) throw new Error('a service token needs a positive whole number of seconds');
  const claims: JWTPayload = { organization_id: identity.organizationId, user_type: identity.userType };
  if (identity.grants !== undefined) claims.grants = identity.grants;
  if (identity.apiKeyId !== undefined) claims.api_key_id = identity.apiKeyId;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(SERVICE_TOKEN_ISSUER)
    .setSubject(identity.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + ttlSeconds)
    .sign(key);
}

/**
 * The service token key when AUTH_SERVICE_KEY is unset: derived (HKDF-SHA256)
 * from the config encryption key, which every API replica already shares, so
 * a token minted by one replica verifies on all of them.
 */
export function deriveServiceKey(encryptionKey: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', encryptionKey, new Uint8Array(0), 'platform-api service tokens v1', 32));
}
