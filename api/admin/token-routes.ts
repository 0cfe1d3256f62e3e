/**
 * `POST /token`: an API key exchanged for a short-lived service token that
 * carries the key's owner, user type, id and grants (with each role's
 * permissions), so every route checks it like any token, narrowed to the key
 * (api/access/key-grants.ts). Attempts are bounded per client address and per
 * key prefix before anything is looked up; the key is never logged or echoed.
 */
import type { DataSource } from 'typeorm';
import { DEFAULT_API_KEY_SETTINGS } from '../../config/config';
import { ApiKeyRepository } from '../../db/repositories/api-key-repository';
import { RoleRepository } from '../../db/repositories/role-repository';
import { UserRepository } from '../../db/repositories/user-repository';
import { RateLimiter } from '../http/rate-limiter';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ServiceTokens, TokenGrant } from '../http/service-tokens';
import type { ApiKeyEntity } from '../../db/entities/api-key';
import { hashKey, prefixOf } from './api-key-value';
import type { AdminDeps } from './deps';
import { apiKeyAttemptsExceeded, invalidApiKey } from './errors';
import { TokenAnswer, TokenBody } from './schemas/api-keys';

/** Exchanges per minute (and at once) from one client address, and for one key prefix. */
export const TOKEN_RATE = { perAddress: { perMinute: 60, burst: 20 }, perPrefix: { perMinute: 30, burst: 10 } };

export function tokenRoutes({ dataSource, apiKeys = DEFAULT_API_KEY_SETTINGS, serviceTokens }: AdminDeps): RouteDefinition[] {
  if (!serviceTokens) return [];
  const byAddress = new RateLimiter(TOKEN_RATE.perAddress.perMinute, TOKEN_RATE.perAddress.burst);
  const byPrefix = new RateLimiter(TOKEN_RATE.perPrefix.perMinute, TOKEN_RATE.perPrefix.burst);
  return [
    defineRoute({
      method: 'post',
      path: '/token',
      operationId: 'exchangeApiKey',
      summary: 'Exchange an API key for a short-lived access token.',
      tags: ['api keys'],
      access: { public: 'the API key in the body is the credential (found by its hash; attempts limited per address and key prefix)' },
      audit: { none: 'an exchange changes nothing but the key’s last use' },
      body: TokenBody,
      responses: { 200: { description: 'The access token', schema: TokenAnswer } },
      errors: [401, 429],
      handler: async ({ body, ctx }) => {
        const value = (body.apikey ?? body.api_key)!;
        const waitAddress = byAddress.take(ctx.state.clientAddress ?? ctx.ip);
        if (waitAddress > 0) throw apiKeyAttemptsExceeded(waitAddress);
        const prefix = prefixOf(value);
        if (prefix === undefined) throw invalidApiKey();
        const waitPrefix = byPrefix.take(prefix);
        if (waitPrefix > 0) throw apiKeyAttemptsExceeded(waitPrefix);
        const key = await ApiKeyRepository.of(dataSource.manager).useByHash(hashKey(value));
        if (!key) throw invalidApiKey();
        const minted = await mintFor(dataSource, serviceTokens, key, apiKeys.tokenTtlSeconds);
        return {
          status: 200,
          headers: { 'Cache-Control': 'no-store' },
          body: {
            access_token: minted.token,
            refresh_token: null,
            token_type: 'Bearer' as const,
            organization_id: Number(key.organizationId),
            expires_in: minted.ttl,
          },
        };
      },
    }),
  ];
}

/** A token for the key's owner with the key's grants; never outliving the key itself. */
async function mintFor(
  dataSource: DataSource,
  serviceTokens: ServiceTokens,
  key: ApiKeyEntity,
  ttlSeconds: number,
): Promise<{ token: string; ttl: number }> {
  const roles = await RoleRepository.of(dataSource.manager).findByIdsOrSlugs(
    key.grants.map((g) => g.role_id),
    [],
  );
  const grants: TokenGrant[] = key.grants.map((g) => ({
    nrn: g.nrn,
    role_slug: g.role_slug,
    // A role removed since the key was made grants nothing.
    permissions: roles.find((r) => r.id === g.role_id)?.permissions ?? [],
  }));
  const owner = await UserRepository.of(dataSource.manager).findOneBy({ organizationId: key.organizationId, id: key.ownerId });
  if (!owner) throw invalidApiKey();
  const untilKeyEnds = Math.floor((new Date(key.expiresAt).getTime() - Date.now()) / 1000);
  const ttl = Math.max(1, Math.min(ttlSeconds, untilKeyEnds));
  const token = await serviceTokens.mint(
    { userId: key.ownerId, organizationId: key.organizationId, userType: owner.type, grants, apiKeyId: String(key.id) },
    ttl,
  );
  return { token, ttl };
}
