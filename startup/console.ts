/**
 * The web console's part of start-up: build it when its sources changed, offer
 * sign-in through the OpenID Connect issuer when one is configured, and in
 * development (`npm start`, one process, a shared signing key) print a one-time
 * sign-in link for the first administrator.
 */
import type { DataSource } from 'typeorm';
import type { AppDeps } from '../api/app';
import { DEFAULT_FIRST_ADMIN } from '../api/admin/bootstrap';
import type { ServiceTokens } from '../api/http/service-tokens';
import { createOidcClient } from '../api/console/oidc-client';
import type { OidcSignInDeps } from '../api/console/oidc-routes';
import { transactionKey } from '../api/console/oidc-transaction';
import { SIGN_IN_CODE_TTL_MS, type SignInCodes } from '../api/console/sign-in-codes';
import type { AppConfig } from '../config/config';
import type { OidcSettings } from '../config/oidc';
import type { Logger } from '../config/logger';
import { CONSOLE_ASSETS_DIR, ensureConsoleBuilt } from './console-build';

/** How long a session made from a sign-in link lasts, in seconds. */
export const SIGN_IN_SESSION_TTL_SECONDS = 12 * 3600;

export async function consoleOptions(
  dataSource: DataSource,
  serviceTokens: ServiceTokens,
  signInCodes: SignInCodes | undefined,
  logger: Logger,
  oidc?: { settings: OidcSettings; sharedSecret: Uint8Array },
): Promise<NonNullable<AppDeps['console']>> {
  try {
    if (await ensureConsoleBuilt()) logger.info({ dir: CONSOLE_ASSETS_DIR }, 'console built');
  } catch (error) {
    // The API works without its console; /console then says it is not built.
    logger.error({ err: error }, 'the console could not be built');
  }
  return {
    assetsDir: CONSOLE_ASSETS_DIR,
    dataSource,
    ...(signInCodes
      ? {
          signIn: {
            codes: signInCodes,
            // A service token: signed with the service's own key, whatever the external issuer is.
            mint: (identity) => serviceTokens.mint({ ...identity, userType: 'person' }, SIGN_IN_SESSION_TTL_SECONDS),
          },
        }
      : {}),
    ...(oidc ? { oidc: oidcSignIn(oidc.settings, oidc.sharedSecret, serviceTokens) } : {}),
  };
}

/** Sign-in through the issuer: its client, the transaction cookie's key (from a secret every replica shares), and the session's minter. */
export function oidcSignIn(settings: OidcSettings, sharedSecret: Uint8Array, serviceTokens: ServiceTokens): OidcSignInDeps {
  return {
    client: createOidcClient(settings),
    transactionKey: transactionKey(sharedSecret),
    // A service token, like the sign-in link's: the issuer's ID token vouched for the identity, the service signs the session.
    mint: (identity) => serviceTokens.mint(identity, SIGN_IN_SESSION_TTL_SECONDS),
  };
}

/** A one-time console sign-in link for the first administrator (user 1 of organization 1 unless BOOTSTRAP_ADMINS names one). */
export function signInLink(
  codes: SignInCodes,
  config: Pick<AppConfig, 'publicBaseUrl' | 'bootstrapAdmins'>,
): { url: string; validMinutes: number; userId: string; organizationId: string } {
  const admin = config.bootstrapAdmins[0] ?? DEFAULT_FIRST_ADMIN;
  const userId = String(admin.userId);
  const organizationId = String(admin.organizationId);
  const code = codes.issue({ userId, organizationId });
  return {
    url: `${config.publicBaseUrl}/console/#code=${code}`,
    validMinutes: Math.round(SIGN_IN_CODE_TTL_MS / 60_000),
    userId,
    organizationId,
  };
}
