/**
 * The caller's own API keys: create (the value answered this once), list, read,
 * change (name, grants, tags) and revoke. Every statement names the caller as
 * the owner, so another user's key answers 404 like a missing one. Keys are
 * managed with a user's own token, never with a key's token.
 */
import { Type } from '@sinclair/typebox';
import { DEFAULT_API_KEY_SETTINGS } from '../../config/config';
import { ApiKeyRepository, type ApiKeyOwner } from '../../db/repositories/api-key-repository';
import type { ApiKeyEntity } from '../../db/entities/api-key';
import { loadAccess, type Access } from '../access/access';
import { organizationNrn } from '../access/nrn';
import type { AuditTrail } from '../audit/trail';
import type { AuthContext } from '../http/auth';
import { iso } from '../http/iso-date';
import type { Permission } from '../http/permissions';
import { defineRoute, type RouteDefinition } from '../http/route';
import { resolveKeyGrants } from './api-key-grants';
import { newKeyValue } from './api-key-value';
import type { AdminDeps } from './deps';
import { apiKeyExpiryOutOfRange, apiKeyFromApiKey, apiKeyNotFound, organizationNotFound } from './errors';
import { ADMIN_ERRORS, IdParams, Paged, PagingQuery } from './schemas/common';
import { ApiKey, CreateApiKeyBody, CreatedApiKey, UpdateApiKeyBody } from './schemas/api-keys';
import { apiKeyOut } from './serialize';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = "the permission anywhere in the caller's organization: a key is the caller's own";

const DAY_MS = 86_400_000;

export function apiKeyRoutes({ dataSource, apiKeys = DEFAULT_API_KEY_SETTINGS }: AdminDeps): RouteDefinition[] {
  /** The caller's access, once it may use `permission` on its keys; `write` refuses a key's own token. */
  const ownerAccess = async (auth: AuthContext, permission: Permission): Promise<{ access: Access; owner: ApiKeyOwner }> => {
    if (permission === 'api_key:write' && auth.apiKeyId !== undefined) throw apiKeyFromApiKey();
    const access = await loadAccess(dataSource, auth);
    access.requireSomewhere(permission, auth.organizationId, () => organizationNotFound(auth.organizationId));
    return { access, owner: { organizationId: auth.organizationId, ownerId: auth.userId } };
  };
  const auditKey = (audit: AuditTrail, manager: Parameters<AuditTrail['record']>[0], key: ApiKeyEntity, details: Record<string, unknown>) =>
    audit.record(manager, { nrn: organizationNrn(key.organizationId), id: key.id, details: { prefix: key.prefix, ...details } });

  return [
    defineRoute({
      method: 'post',
      path: '/api_key',
      operationId: 'createApiKey',
      summary: 'Create an API key for the caller; the answer holds the key itself, shown only this once.',
      tags: ['api keys'],
      access: { permission: 'api_key:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'api_key.create' },
      body: CreateApiKeyBody,
      responses: { 201: { description: 'The key, with its value', schema: CreatedApiKey } },
      errors: ADMIN_ERRORS,
      handler: async ({ body, auth, permission, audit }) => {
        const { access, owner } = await ownerAccess(auth, permission);
        const expiresAt = expiryOf(body.expires_at, apiKeys);
        const grants = await resolveKeyGrants(dataSource, access, body.grants);
        const value = newKeyValue();
        const key = await dataSource.transaction(async (manager) => {
          const created = await ApiKeyRepository.of(manager).insertKey({
            ...owner,
            name: body.name,
            prefix: value.prefix,
            keyHash: value.hash,
            grants,
            tags: body.tags ?? [],
            expiresAt,
          });
          await auditKey(audit, manager, created, { name: created.name, grants, expires_at: iso(expiresAt) });
          return created;
        });
        // The one answer that holds the value: kept by no cache.
        return { status: 201, headers: { 'Cache-Control': 'no-store' }, body: { ...apiKeyOut(key), api_key: value.value } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api_key',
      operationId: 'listApiKeys',
      summary: "List the caller's API keys (never their values).",
      tags: ['api keys'],
      access: { permission: 'api_key:read', inHandler: CHECKED_IN_HANDLER },
      query: Type.Object(PagingQuery),
      responses: { 200: { description: 'A page of keys', schema: Paged(ApiKey) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth, permission }) => {
        const { owner } = await ownerAccess(auth, permission);
        const page = await ApiKeyRepository.of(dataSource.manager).pageOfOwner(owner, query.offset, query.limit);
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map(apiKeyOut) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api_key/{id}',
      operationId: 'getApiKey',
      summary: "Read one of the caller's API keys (never its value).",
      tags: ['api keys'],
      access: { permission: 'api_key:read', inHandler: CHECKED_IN_HANDLER },
      params: IdParams,
      responses: { 200: { description: 'The key', schema: ApiKey } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth, permission }) => {
        const { owner } = await ownerAccess(auth, permission);
        const key = await ApiKeyRepository.of(dataSource.manager).findOwned(owner, params.id);
        if (!key) throw apiKeyNotFound(params.id);
        return { status: 200, body: apiKeyOut(key) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/api_key/{id}',
      operationId: 'updateApiKey',
      summary: "Change an API key's name, grants or tags (its value and expiry stay).",
      tags: ['api keys'],
      access: { permission: 'api_key:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'api_key.update' },
      params: IdParams,
      body: UpdateApiKeyBody,
      responses: { 200: { description: 'The key', schema: ApiKey } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, body, auth, permission, audit }) => {
        const { access, owner } = await ownerAccess(auth, permission);
        const grants = body.grants ? await resolveKeyGrants(dataSource, access, body.grants) : undefined;
        const key = await dataSource.transaction(async (manager) => {
          const updated = await ApiKeyRepository.of(manager).updateOwned(owner, params.id, { name: body.name, grants, tags: body.tags });
          if (!updated) throw apiKeyNotFound(params.id);
          await auditKey(audit, manager, updated, { changed: Object.keys(body).sort(), ...(grants ? { grants } : {}) });
          return updated;
        });
        return { status: 200, body: apiKeyOut(key) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api_key/{id}',
      operationId: 'deleteApiKey',
      summary: 'Revoke an API key: it and the tokens it was exchanged for stop working at once.',
      tags: ['api keys'],
      access: { permission: 'api_key:write', inHandler: CHECKED_IN_HANDLER },
      audit: { action: 'api_key.delete' },
      params: IdParams,
      responses: { 204: { description: 'Revoked' } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth, permission, audit }) => {
        const { owner } = await ownerAccess(auth, permission);
        await dataSource.transaction(async (manager) => {
          const repository = ApiKeyRepository.of(manager);
          const key = await repository.findOwned(owner, params.id);
          if (!key || !(await repository.deleteOwned(owner, params.id))) throw apiKeyNotFound(params.id);
          await auditKey(audit, manager, key, { name: key.name });
        });
        return { status: 204 };
      },
    }),
  ];
}

/** The expiry asked for (at most API_KEY_MAX_DAYS away), else API_KEY_DEFAULT_DAYS from now. */
function expiryOf(asked: string | undefined, settings: typeof DEFAULT_API_KEY_SETTINGS): Date {
  const now = Date.now();
  if (asked === undefined) return new Date(now + Math.min(settings.defaultDays, settings.maxDays) * DAY_MS);
  const at = new Date(asked);
  if (!(at.getTime() > now) || at.getTime() > now + settings.maxDays * DAY_MS) throw apiKeyExpiryOutOfRange(settings.maxDays);
  return at;
}
