/**
 * From a verified ID token's claims to the platform identity the console's
 * session carries, through the configured claim names (config/oidc.ts). Ids
 * take the one spelling the API compares (a canonical decimal string), so a
 * session from the issuer and a bearer token for the same person match.
 */
import type { OidcClaimNames } from '../../config/oidc';
import { canonicalId, type UserType } from '../http/auth';
import { claimInvalid, claimMissing } from './oidc-failures';

export interface OidcIdentity {
  userId: string;
  organizationId: string;
  userType: UserType;
}

export function identityFromClaims(claims: Record<string, unknown>, names: OidcClaimNames): OidcIdentity {
  const id = (name: string): string => {
    const value = claims[name];
    if (value === undefined || value === null || value === '') throw claimMissing(name);
    const canonical = canonicalId(value);
    if (canonical === undefined) throw claimInvalid(name, 'a positive integer id');
    return canonical;
  };
  const userId = id(names.userId);
  const organizationId = id(names.organizationId);
  // People sign in through the issuer; a claim may still say the account is a service account.
  const type = claims[names.userType] ?? 'person';
  if (type !== 'person' && type !== 'service_account') throw claimInvalid(names.userType, 'person or service_account');
  return { userId, organizationId, userType: type };
}
