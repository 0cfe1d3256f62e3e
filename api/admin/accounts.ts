/** Accounts: create, read (with soft-deleted ones on request), list, update, soft delete. */
import type { Static } from '@sinclair/typebox';
import type { DataSource } from 'typeorm';
import { isUniqueViolation } from '../../db/sql';
import { HttpError, notFound } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import {
  findAccount,
  insertAccount,
  listAccounts,
  listAccountsAmong,
  slugsLike,
  softDeleteAccount,
  updateAccount,
  upsertAccountMetadata,
  type AccountRecord,
} from '../../db/stores/accounts';
import { loadAccess, type Access } from './access';
import { accountNrn, organizationNrn } from './nrn';
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

const accountNotFound = (id: number) => () => notFound(`Account ${id} not found.`, 'ACCOUNT.NOT_FOUND');
const organizationNotFound = (id: number | string) => () => notFound(`Organization ${id} not found.`, 'ORGANIZATION.NOT_FOUND');
const slugTaken = (slug: string) =>
  new HttpError(409, 'ACCOUNT.SLUG_TAKEN', `An account with slug "${slug}" already exists in the organization.`);

function accountOut(a: AccountRecord, options: { include?: string[]; showDeleted?: boolean } = {}) {
  const include = options.include ?? [];
  return {
    id: a.id,
    name: a.name,
    slug: a.slug,
    organization_id: a.organization_id,
    status: a.status,
    ...(options.showDeleted ? { deleted_at: a.deleted_at === null ? null : iso(a.deleted_at) } : {}),
    ...(a.metadata
      ? {
          metadata: {
            key: a.metadata.key,
            value: a.metadata.value,
            additional_properties: {
              ...(include.includes('schemas') ? { schemas: a.metadata.schemas } : {}),
              ...(include.includes('tags') ? { tags: a.metadata.tags } : {}),
            },
          },
        }
      : {}),
  };
}

const metadataRecord = (m: Static<typeof MetadataInput>) => ({
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
  const account = await findAccount(dataSource.manager, id);
  if (!account) throw accountNotFound(id)();
  access.require(permission, accountNrn(account.organization_id, account.id), accountNotFound(id));
  if (account.deleted_at !== null && !showDeleted) throw accountNotFound(id)();
  return account;
}

async function create(dataSource: DataSource, body: Static<typeof CreateAccountBody>): Promise<number> {
  const base = body.slug ?? slugify(body.name, ACCOUNT_SLUG_MAX, 'account');
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    let slug = base;
    if (body.slug === undefined) {
      const taken = await slugsLike(dataSource.manager, body.organization_id, base);
      for (let n = 1; taken.has((slug = slugCandidate(base, n, ACCOUNT_SLUG_MAX))); n += 1);
    }
    try {
      return await dataSource.transaction(async (manager) => {
        const id = await insertAccount(manager, {
          organizationId: body.organization_id,
          name: body.name,
          slug,
          status: body.status ?? 'active',
        });
        if (body.metadata) await upsertAccountMetadata(manager, id, metadataRecord(body.metadata));
        return id;
      });
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      // An explicit slug is the caller's to change; a generated one lost a race and is picked again.
      if (body.slug !== undefined) throw slugTaken(slug);
    }
  }
  throw slugTaken(base);
}

export function accountRoutes({ dataSource }: { dataSource: DataSource }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/account',
      operationId: 'createAccount',
      summary: 'Create an account in an organization; the slug is generated from the name when omitted.',
      tags: ['accounts'],
      access: { permission: 'account:write' },
      body: CreateAccountBody,
      responses: { 201: { description: 'The account', schema: Account } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ body, auth }) => {
        const access = await loadAccess(dataSource, auth);
        access.require('account:write', organizationNrn(body.organization_id), organizationNotFound(body.organization_id));
        const id = await create(dataSource, body);
        return { status: 201, body: accountOut((await findAccount(dataSource.manager, id))!, { include: ['schemas', 'tags'] }) };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/account',
      operationId: 'listAccounts',
      summary: 'List the live accounts of an organization (those the caller may read), 30 per page by default.',
      tags: ['accounts'],
      access: { permission: 'account:read' },
      query: ListAccountsQuery,
      responses: { 200: { description: 'A page of accounts', schema: Paged(Account) } },
      errors: ADMIN_ERRORS,
      handler: async ({ query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const org = Number(query.organization_id);
        const readable = access.accountsWith('account:read', org);
        // Someone granted on single accounts lists those; without any, the usual 404/403.
        if (readable !== 'all' && readable.length === 0) access.require('account:read', organizationNrn(org), organizationNotFound(org));
        const page =
          readable === 'all'
            ? await listAccounts(dataSource.manager, org, query.offset, query.limit)
            : await listAccountsAmong(dataSource.manager, org, readable, query.offset, query.limit);
        return {
          status: 200,
          body: { paging: { total: page.total, offset: query.offset, limit: query.limit }, results: page.rows.map((a) => accountOut(a)) },
        };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/account/{id}',
      operationId: 'getAccount',
      summary: 'Read an account; a soft-deleted one answers 404 unless show_deleted=true.',
      tags: ['accounts'],
      access: { permission: 'account:read' },
      params: IdParams,
      query: GetAccountQuery,
      responses: { 200: { description: 'The account', schema: Account } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, query, auth }) => {
        const access = await loadAccess(dataSource, auth);
        const account = await accessibleAccount(dataSource, access, params.id, 'account:read', query.show_deleted);
        const include = query.metadata_include?.split(',') ?? [];
        return { status: 200, body: accountOut(account, { include, showDeleted: query.show_deleted }) };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/account/{id}',
      operationId: 'updateAccount',
      summary: 'Update the name, slug, status (active or inactive) or metadata of an account.',
      tags: ['accounts'],
      access: { permission: 'account:write' },
      params: IdParams,
      body: UpdateAccountBody,
      responses: { 200: { description: 'The account', schema: Account } },
      errors: [...ADMIN_ERRORS, 409],
      handler: async ({ params, body, auth }) => {
        const access = await loadAccess(dataSource, auth);
        await accessibleAccount(dataSource, access, params.id, 'account:write');
        try {
          await dataSource.transaction(async (manager) => {
            await updateAccount(manager, params.id, body);
            if (body.metadata) await upsertAccountMetadata(manager, params.id, metadataRecord(body.metadata));
          });
        } catch (error) {
          if (isUniqueViolation(error)) throw slugTaken(body.slug ?? '');
          throw error;
        }
        return { status: 200, body: accountOut((await findAccount(dataSource.manager, params.id))!, { include: ['schemas', 'tags'] }) };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/account/{id}',
      operationId: 'deleteAccount',
      summary: 'Soft-delete an account: status becomes deleted and deleted_at is set.',
      tags: ['accounts'],
      access: { permission: 'account:write' },
      params: IdParams,
      responses: { 204: { description: 'Deleted' } },
      errors: ADMIN_ERRORS,
      handler: async ({ params, auth }) => {
        const access = await loadAccess(dataSource, auth);
        await accessibleAccount(dataSource, access, params.id, 'account:write');
        if (!(await softDeleteAccount(dataSource.manager, params.id))) throw accountNotFound(params.id)();
        return { status: 204 };
      },
    }),
  ];
}
