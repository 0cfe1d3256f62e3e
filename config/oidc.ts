/**
 * Console sign-in through OpenID Connect (`OIDC_*`): which issuer, which client,
 * and which ID-token claims name the platform's user id, organization and user
 * type. Off unless `OIDC_ISSUER_URL` is set. Parsed by config.ts (the one reader
 * of the environment), which reports the problems found here with its own.
 */

export interface OidcSettings {
  /** The issuer identifier (`OIDC_ISSUER_URL`); its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuerUrl: string;
  /** `OIDC_CLIENT_ID`. */
  clientId: string;
  /** `OIDC_CLIENT_SECRET`; unset: a public client (PKCE alone proves the code's holder). */
  clientSecret?: string;
  /** Where the issuer sends the browser back (`OIDC_REDIRECT_URL`, default `<PUBLIC_BASE_URL>/console/oidc/callback`). */
  redirectUrl: string;
  /** Where the issuer sends the browser after signing out (`<PUBLIC_BASE_URL>/console/sign-in`). */
  postLogoutRedirectUrl: string;
  /** Scopes asked for (`OIDC_SCOPES`, space-separated, default `openid profile`; always includes openid). */
  scopes: string[];
  /** The button's label: "Sign in with <name>" (`OIDC_PROVIDER_NAME`, default the issuer's host). */
  providerName: string;
  /** ID-token claims read for the platform identity (`OIDC_*_CLAIM`). */
  claims: OidcClaimNames;
}

export interface OidcClaimNames {
  /** A positive integer user id (`OIDC_USER_ID_CLAIM`, default `sub`). */
  userId: string;
  /** A positive integer organization id (`OIDC_ORGANIZATION_CLAIM`, default `organization_id`). */
  organizationId: string;
  /** `person` or `service_account`; person when the token lacks it (`OIDC_USER_TYPE_CLAIM`, default `user_type`). */
  userType: string;
}

/** The defaults are the claims the API's own bearer tokens carry, so an issuer already minting those works unchanged. */
export const DEFAULT_OIDC_CLAIMS: OidcClaimNames = { userId: 'sub', organizationId: 'organization_id', userType: 'user_type' };
export const DEFAULT_OIDC_SCOPES = ['openid', 'profile'];
export const OIDC_CALLBACK_PATH = '/console/oidc/callback';

/** A claim name: printable ASCII without spaces (namespaced claims such as `https://example.com/org` included). */
const CLAIM_NAME = /^[\x21-\x7e]{1,200}$/;
const SCOPE = /^[\x21\x23-\x5b\x5d-\x7e]{1,100}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Reads the `OIDC_*` variables; undefined when `OIDC_ISSUER_URL` is unset. Problems are pushed onto `problems`. */
export function readOidcSettings(
  read: (name: string) => string | undefined,
  publicBaseUrl: string,
  problems: string[],
): OidcSettings | undefined {
  const issuerUrl = read('OIDC_ISSUER_URL');
  const clientId = read('OIDC_CLIENT_ID');
  if (issuerUrl === undefined) {
    if (clientId !== undefined) problems.push('OIDC_CLIENT_ID is set without OIDC_ISSUER_URL');
    return undefined;
  }
  const issuer = secureUrl('OIDC_ISSUER_URL', issuerUrl, problems);
  if (clientId === undefined) problems.push('OIDC_CLIENT_ID is required with OIDC_ISSUER_URL');
  else if (clientId.length > 200) problems.push('OIDC_CLIENT_ID must be at most 200 characters');
  const redirectRaw = read('OIDC_REDIRECT_URL');
  const redirectUrl =
    redirectRaw === undefined ? `${publicBaseUrl}${OIDC_CALLBACK_PATH}` : secureUrl('OIDC_REDIRECT_URL', redirectRaw, problems);

  const scopes = (read('OIDC_SCOPES') ?? DEFAULT_OIDC_SCOPES.join(' ')).split(/\s+/).filter(Boolean);
  for (const scope of scopes) if (!SCOPE.test(scope)) problems.push(`OIDC_SCOPES has an invalid scope "${scope}"`);
  if (!scopes.includes('openid')) scopes.unshift('openid');

  const claim = (name: string, fallback: string): string => {
    const value = read(name) ?? fallback;
    if (!CLAIM_NAME.test(value))
      problems.push(`${name} must be a claim name (printable characters, no spaces, at most 200; got "${value}")`);
    return value;
  };
  const claims: OidcClaimNames = {
    userId: claim('OIDC_USER_ID_CLAIM', DEFAULT_OIDC_CLAIMS.userId),
    organizationId: claim('OIDC_ORGANIZATION_CLAIM', DEFAULT_OIDC_CLAIMS.organizationId),
    userType: claim('OIDC_USER_TYPE_CLAIM', DEFAULT_OIDC_CLAIMS.userType),
  };
  const providerName = read('OIDC_PROVIDER_NAME') ?? (issuer ? new URL(issuer).host : 'single sign-on');
  if (providerName.length > 60) problems.push('OIDC_PROVIDER_NAME must be at most 60 characters');

  return {
    issuerUrl: issuer ?? issuerUrl,
    clientId: clientId ?? '',
    clientSecret: read('OIDC_CLIENT_SECRET'),
    redirectUrl: redirectUrl ?? '',
    postLogoutRedirectUrl: `${publicBaseUrl}/console/sign-in`,
    scopes,
    providerName,
    claims,
  };
}

/** An https URL, or http on a loopback host (a provider on the developer's machine); the text as given (an issuer is compared exactly). */
function secureUrl(name: string, raw: string, problems: string[]): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    problems.push(`${name} must be a URL (got "${raw}")`);
    return undefined;
  }
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) {
    problems.push(`${name} must be an https URL (http only on localhost; got "${raw}")`);
    return undefined;
  }
  if (parsed.search !== '' || parsed.hash !== '') {
    problems.push(`${name} must not carry a query or fragment (got "${raw}")`);
    return undefined;
  }
  return raw;
}

/** True when requests to `url` go over plain http (allowed only to loopback hosts, see {@link readOidcSettings}). */
export function isPlainHttp(url: string): boolean {
  return new URL(url).protocol === 'http:';
}
