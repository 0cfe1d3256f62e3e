/**
 * The console's OpenID Connect client (openid-client): discovery of the issuer,
 * the authorization request with state, nonce and PKCE (S256), and the code
 * exchange whose ID token is checked for issuer, audience, nonce, expiry and
 * signature (against the issuer's JWKS: the signature is checked too, although
 * the token came straight from the issuer over TLS).
 *
 * Discovery happens on first use and is remembered; a failed discovery is not,
 * so an issuer that was down at start-up is found again on the next sign-in.
 */
import * as oidc from 'openid-client';
import { isPlainHttp, type OidcSettings } from '../../config/oidc';
import { issuerError, issuerUnreachable, stateMismatch, tokenRejected } from './oidc-failures';
import type { OidcTransaction } from './oidc-transaction';

/** Seconds one request to the issuer may take. */
const ISSUER_TIMEOUT_SECONDS = 10;

export interface OidcClient {
  readonly settings: OidcSettings;
  /** A fresh transaction and the issuer's authorization URL for it. */
  begin(returnTo: string): Promise<{ url: string; transaction: OidcTransaction }>;
  /** Checks the callback's parameters against the transaction, exchanges the code and answers the ID token's verified claims. */
  finish(callback: URLSearchParams, transaction: OidcTransaction): Promise<Record<string, unknown>>;
  /** Where to send the browser to end the issuer's session too; undefined when the issuer advertises no end_session_endpoint. */
  endSessionUrl(): Promise<string | undefined>;
}

export function createOidcClient(settings: OidcSettings): OidcClient {
  let discovered: Promise<oidc.Configuration> | undefined;
  const configuration = (): Promise<oidc.Configuration> => {
    discovered ??= discover(settings).catch((error: unknown) => {
      discovered = undefined;
      throw issuerUnreachable(describe(error));
    });
    return discovered;
  };

  return {
    settings,
    async begin(returnTo) {
      const config = await configuration();
      const transaction: OidcTransaction = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
        returnTo,
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUrl,
        response_type: 'code',
        scope: settings.scopes.join(' '),
        state: transaction.state,
        nonce: transaction.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(transaction.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, transaction };
    },

    async finish(callback, transaction) {
      const error = callback.get('error');
      if (error !== null) throw issuerError(error);
      if (callback.get('state') !== transaction.state) throw stateMismatch();
      const config = await configuration();
      // The address the issuer sent the browser to, as registered (not as this request's Host header spells it).
      const current = new URL(settings.redirectUrl);
      current.search = callback.toString();
      let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
      try {
        tokens = await oidc.authorizationCodeGrant(config, current, {
          pkceCodeVerifier: transaction.codeVerifier,
          expectedState: transaction.state,
          expectedNonce: transaction.nonce,
          idTokenExpected: true,
        });
      } catch (cause) {
        if (cause instanceof oidc.AuthorizationResponseError) throw issuerError(cause.error);
        throw tokenRejected(describe(cause));
      }
      const claims = tokens.claims();
      if (!claims) throw tokenRejected('no ID token in the token response');
      return claims;
    },

    async endSessionUrl() {
      const config = await configuration();
      if (config.serverMetadata().end_session_endpoint === undefined) return undefined;
      return oidc.buildEndSessionUrl(config, { post_logout_redirect_uri: settings.postLogoutRedirectUrl }).href;
    },
  };
}

async function discover(settings: OidcSettings): Promise<oidc.Configuration> {
  const clientAuth = settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret);
  const execute = [oidc.enableNonRepudiationChecks, ...(isPlainHttp(settings.issuerUrl) ? [oidc.allowInsecureRequests] : [])];
  return oidc.discovery(new URL(settings.issuerUrl), settings.clientId, undefined, clientAuth, {
    execute,
    timeout: ISSUER_TIMEOUT_SECONDS,
  });
}

/** The library's message with its cause's (for the operator's log; the browser sees only the failure's code). */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`.slice(0, 500);
}
