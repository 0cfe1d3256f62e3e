/** Accounts: create, read (with soft-deleted ones on request), list, update, soft delete. */
import type { Static } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../db/sql';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { AccountEntity } from '../../db/entities/account';
import type { MetadataEntryEntity } from '../../db/entities/metadata-entry';
import { AccountRepository } from '../../db/repositories/account-repository';
import { MetadataEntryRepository, type MetadataFields } from '../../db/repositories/metadata-entry-repository';
import { loadAccess, type Access } from '../access/access';
import type { AuditTrail } from '../audit/trail';
import type { AdminDeps } from './deps';
import { accountNrn, organizationNrn } from '../access/nrn';
import {
  Account,
  ACCOUNT_SLUG_MAX,
  CreateAccountBody,
  GetAccountQuery,
  ListAccountsQuery,
  MetadataInput,
  UpdateAccountBody,
} from './schemas/accounts';
import { ADMIN_ERRORS, IdParams, Paged } from './schemas/common';
import { iso } from '../http/iso-date';
import { slugCandidate, slugify } from './slug';
import { accountNotFound, accountSlugTaken, organizationNotFound } from './errors';

/** What these routes' permissions are checked on, in their handlers (a target the route layer cannot name). */
const CHECKED_IN_HANDLER = 'the organization the body or query names, or the account {id} (its deleted state on request)';

/** The catalog's entity kind of accounts. */
const ACCOUNT = 'account';

interface AccountWithMetadata {
  account: AccountEntity;
  metadata: MetadataEntryEntity | null;
}

function accountOut(a: AccountEntity, metadata: MetadataEntryEntity | null, options: { include?: string[]; showDeleted?: boolean } = {}) {
  const include = options.include ?? [];
  return {
    id: a.id,
    name: a.name,
    slug: a.slug,
    organization_id: a.organizationId,
    status: a.status,
    ...(options.showDeleted ? { deleted_at: a.deletedAt === null ? null : iso(a.deletedAt) } : {}),
    ...(metadata
      ? {
          metadata: {
            key: metadata.key,
            value: metadata.value,
            additional_properties: {
              ...(include.includes('schemas') ? { schemas: metadata.schemas } : {}),
              ...(include.includes('tags') ? { tags: metadata.tags } : {}),
            },
          },
        }
      : {}),
  };
}

/** The account and its catalog entry (two statements sent at once, on two pooled connections). */
async function findWithMetadata(dataSource: DataSource, id: number): Promise<AccountWithMetadata | undefined> {
  const [account, metadata] = await Promise.all([
    AccountRepository.of(dataSource.manager).findOneBy({ id }),
    MetadataEntryRepository.of(dataSource.manager).findFor(ACCOUNT, id),
  ]);
  return account ? { account, metadata } : undefined;
}

const metadataFields = (m: Static<typeof MetadataInput>): MetadataFields => ({
  key: m.key,
  value: m.value,
  schemas: m.additional_properties?.schemas ?? [],
  tags: m.additional_properties?.tags ?? [],
});

/** A live (or, when asked, soft-deleted) account the caller may act on. */
async function accessibleAccount(
  dataSource: DataSource,
  access: Access,
  id: number,
  permission: 'account:read' | 'account:write',
  showDeleted = false,
) {
  const found = await findWithMetadata(dataSource, id);
  if (!found) throw accountNotFound(id);
  const { account } = found;
  access.require(permission, accountNrn(account.organizationId, account.id), () => accountNotFound(id));
  if (account.deletedAt !== null && !showDeleted) throw accountNotFound(id);
  return found;
}

async function create(dataSource: DataSource, body: Static<typeof CreateAccountBody>, audit: AuditTrail): Promise<number> {
  const base = body.slug ?? slugify(body.name, ACCOUNT_SLUG_MAX, 'account');
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    let slug = base;
    if (body.slug === undefined) {
      const taken = await AccountRepository.of(dataSource.manager).slugsLike(body.organization_id, base);
      for (let n = 1; taken.has((slug = slugCandidate(base, n, ACCOUNT_SLUG_MAX))); n += 1);
    }
    try {
      return await dataSource.transaction(async (manager) => {
        const id = await AccountRepository.of(manager).insertAccount({
          organizationId: body.organization_id,
          name: body.name,
          slug,
          status: body.status ?? 'active',
        });
        if (body.metadata) await MetadataEntryRepository.of(manager).put(ACCOUNT, id, metadataFields(body.metadata));
        await audit.record(manager, {
          organizationId: String(body.organization_id),
          nrn: accountNrn(body.organization_id, id),
          id,
          details: { name: body.name, slug, status: body.status ?? 'active' },
        });
        return id;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // An explicit slug is the caller's to change; a generated one lost a race and is picked again.
      if (body.slug !== undefined) throw accountSlugTaken(slug);
    }
  }
  throw accountSlugTaken(base);
}

export function accountRoutes({ dataSource }: AdminDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/account',
      operationId: 'createAccount',
      summary: 'Create an account in an organization; the slug is generated from the name when omitted.',
      tags: ['accounts'],
      access: {
        permission: 'account:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'account.create' },
      body: CreateAccountBody,
      responses: { 201: { description: 'The account', schema: Account } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        access.require('account:write', organizationNrn(body.organization_id), () => organizationNotFound(body.organization_id));
        const id = await create(dataSource, body, audit);
        const { account, metadata } = (await findWithMetadata(dataSource, id))!;
        return { status: 201, body: accountOut(account, metadata, { include: ['schemas', 'tags'] }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/account',
      operationId: 'listAccounts',
      summary: 'List the live accounts of an organization (those the caller may read), 30 per page by default.',
      tags: ['accounts'],
      access: {
        permission: 'account:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      query: ListAccountsQuery,
      responses: { 200: { description: 'A page of accounts', schema: Paged(Account) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const org = Number(query.organization_id);
        const readable = access.accountsWith('account:read', org);
        // Someone granted on single accounts lists those; without any, the usual 404/403.
        if (readable !== 'all' && readable.length === 0)
          access.require('account:read', organizationNrn(org), () => organizationNotFound(org));
        const accounts = AccountRepository.of(dataSource.manager);
        const page =
          readable === 'all'
            ? await accounts.listLive(org, query.offset, query.limit)
            : await accounts.listLiveAmong(org, readable, query.offset, query.limit);
        // Lists never carry metadata.
        return {
          status: 200,
          body: {
            paging: { total: page.total, offset: query.offset, limit: query.limit },
            results: page.rows.map((a) => accountOut(a, null)),
          },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/account/{id}',
      operationId: 'getAccount',
      summary: 'Read an account; a soft-deleted one answers 404 unless show_deleted=true.',
      tags: ['accounts'],
      access: {
        permission: 'account:read',
        inHandler: CHECKED_IN_HANDLER,
      },
      params: IdParams,
      query: GetAccountQuery,
      responses: { 200: { description: 'The account', schema: Account } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const { account, metadata } = await accessibleAccount(dataSource, access, params.id, 'account:read', query.show_deleted);
        const include = query.metadata_include?.split(',') ?? [];
        return { status: 200, body: accountOut(account, metadata, { include, showDeleted: query.show_deleted }) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/account/{id}',
      operationId: 'updateAccount',
      summary: 'Update the name, slug, status (active or inactive) or metadata of an account.',
      tags: ['accounts'],
      access: {
        permission: 'account:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'account.update' },
      params: IdParams,
      body: UpdateAccountBody,
      responses: { 200: { description: 'The account', schema: Account } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, body, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const { account: before } = await accessibleAccount(dataSource, access, params.id, 'account:write');
        try {
          await dataSource.transaction(async (manager) => {
            await AccountRepository.of(manager).updateLive(params.id, body);
            if (body.metadata) await MetadataEntryRepository.of(manager).put(ACCOUNT, params.id, metadataFields(body.metadata));
            await audit.record(manager, {
              organizationId: String(before.organizationId),
              nrn: accountNrn(before.organizationId, before.id),
              id: before.id,
              // Undefined fields are left out of the jsonb.
              details: { changed: Object.keys(body), name: body.name, slug: body.slug, status: body.status },
            });
          });
        } catch (error) {
          if (isUniqueViolation(error)) throw accountSlugTaken(body.slug ?? '');
          throw error;
        }
        const { account, metadata } = (await findWithMetadata(dataSource, params.id))!;
        return { status: 200, body: accountOut(account, metadata, { include: ['schemas', 'tags'] }) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/account/{id}',
      operationId: 'deleteAccount',
      summary: 'Soft-delete an account: status becomes deleted and deleted_at is set.',
      tags: ['accounts'],
      access: {
        permission: 'account:write',
        inHandler: CHECKED_IN_HANDLER,
      },
      audit: { action: 'account.delete' },
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth, audit }) => {
        const access = await loadAccess(dataSource, auth);
        const { account } = await accessibleAccount(dataSource, access, params.id, 'account:write');
        await dataSource.transaction(async (manager) => {
          if (!(await AccountRepository.of(manager).softDeleteLive(params.id))) throw accountNotFound(params.id);
          await audit.record(manager, {
            organizationId: String(account.organizationId),
            nrn: accountNrn(account.organizationId, account.id),
            id: account.id,
          });
        });
        return { status: 204 };
      },
    }),
  ];
}
