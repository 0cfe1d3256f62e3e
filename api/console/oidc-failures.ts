/**
 * Why an OpenID Connect sign-in failed. The callback never answers an error
 * body: it sends the browser back to the sign-in page with the failure's code
 * (and a short detail such as the claim's name) in the address's fragment, and
 * the console says what happened. Codes, not texts, travel in the address, so
 * no link can make the sign-in page show words of its author's choosing.
 */

export type OidcFailureCode =
  'expired' | 'state_mismatch' | 'issuer_error' | 'issuer_unreachable' | 'token_rejected' | 'claim_missing' | 'claim_invalid';

export class OidcFailure extends Error {
  constructor(
    readonly code: OidcFailureCode,
    message: string,
    /** A short token shown with the code's message (a claim's name, the issuer's error code). */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'OidcFailure';
  }
}

/** No transaction cookie, or one past its life or not ours: the sign-in took too long or began in another browser. */
export const transactionExpired = (why: string) => new OidcFailure('expired', `no valid sign-in transaction: ${why}`);
export const stateMismatch = () => new OidcFailure('state_mismatch', 'the state the issuer returned is not the one this browser sent');
export const issuerError = (error: string) => new OidcFailure('issuer_error', `the issuer answered error ${error}`, error);
export const issuerUnreachable = (cause: string) => new OidcFailure('issuer_unreachable', `the issuer's discovery failed: ${cause}`);
export const tokenRejected = (cause: string) => new OidcFailure('token_rejected', `the code exchange or the ID token failed: ${cause}`);
export const claimMissing = (claim: string) => new OidcFailure('claim_missing', `the ID token has no "${claim}" claim`, claim);
export const claimInvalid = (claim: string, expected: string) =>
  new OidcFailure('claim_invalid', `the ID token's "${claim}" claim is not ${expected}`, claim);

/** Short, safe tokens only (a claim name, an OAuth error code) travel as a failure's detail. */
const SAFE_DETAIL = /^[\x21-\x7e]{1,100}$/;

/** The sign-in page's address for a failure: `/console/sign-in#error=CODE&detail=DETAIL`. */
export function failureLocation(failure: OidcFailure): string {
  const fragment = new URLSearchParams({ error: failure.code });
  if (failure.detail !== undefined && SAFE_DETAIL.test(failure.detail)) fragment.set('detail', failure.detail);
  return `/console/sign-in#${fragment.toString()}`;
}
