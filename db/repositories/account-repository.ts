/** Accounts (soft-deleted ones keep their row) and the one-round-trip pages of the account list. */
import { IsNull, Repository, type EntityManager } from 'typeorm';
import { AccountEntity, type AccountStatus } from '../entities/account';
import { rowsOf, selectColumns } from '../sql';
import { bind, raw, sql } from '../sql-builder';
import { liveAccountsSql } from './account-count-repository';
import { pageFromRows, pageOf, type Page } from './paged-rows';
import { insertReturning } from './returning';

export class AccountRepository extends Repository<AccountEntity> {
  static of(manager: EntityManager): AccountRepository {
    return new AccountRepository(AccountEntity, manager);
  }

  async insertAccount(account: Pick<AccountEntity, 'organizationId' | 'name' | 'slug' | 'status'>): Promise<number> {
    return (await insertReturning(this, account)).id;
  }

  /** Live slugs of an organization that start with `base` (to pick a free generated slug). */
  async slugsLike(organizationId: number, base: string): Promise<Set<string>> {
    const rows = await rowsOf<{ slug: string }>(
      this.manager,
      sql`SELECT a.slug FROM accounts a WHERE a.organization_id = ${organizationId} AND a.deleted_at IS NULL AND left(a.slug, ${base.length}) = ${base}`,
    );
    return new Set(rows.map((r) => r.slug));
  }

  /** Name, slug and status of a live account (and always `updatedAt`); false when there is none. */
  async updateLive(id: number, changes: { name?: string; slug?: string; status?: Exclude<AccountStatus, 'deleted'> }): Promise<boolean> {
    const set: Partial<Pick<AccountEntity, 'name' | 'slug' | 'status'>> = {};
    if (changes.name !== undefined) set.name = changes.name;
    if (changes.slug !== undefined) set.slug = changes.slug;
    if (changes.status !== undefined) set.status = changes.status;
    const result = await this.update({ id, deletedAt: IsNull() }, set);
    return (result.affected ?? 0) > 0;
  }

  /** Soft delete: the row stays, with status `deleted` and `deletedAt`; its slug becomes free. */
  async softDeleteLive(id: number): Promise<boolean> {
    const result = await this.update({ id, deletedAt: IsNull() }, { status: 'deleted', deletedAt: () => 'now()' });
    return (result.affected ?? 0) > 0;
  }

  /**
   * One page of live accounts and their total, in one round trip. Page ids come
   * from an index-only scan of the partial listing index; pages past the middle
   * are read from the far end (descending), so the last page is as cheap as the
   * first. The total is the trigger-maintained count, read in the same snapshot.
   */
  async listLive(organizationId: number, offset: number, limit: number): Promise<Page<AccountEntity>> {
    const [organization, skip, take] = [bind(organizationId), bind(offset), bind(limit)];
    const rows = await rowsOf<AccountEntity & { __total: number }>(
      this.manager,
      sql`WITH total AS (
         SELECT ${liveAccountsSql(organization)} AS n
       ),
       head AS (
         SELECT id FROM accounts WHERE organization_id = ${organization} AND deleted_at IS NULL AND ${skip} <= (SELECT n FROM total) / 2
          ORDER BY id OFFSET ${skip} LIMIT ${take}
       ),
       tail AS (
         SELECT id FROM accounts WHERE organization_id = ${organization} AND deleted_at IS NULL AND ${skip} > (SELECT n FROM total) / 2
          ORDER BY id DESC
          OFFSET GREATEST((SELECT n FROM total) - ${skip} - ${take}, 0)
          LIMIT LEAST(${take}, GREATEST((SELECT n FROM total) - ${skip}, 0))
       ),
       ids AS (SELECT id FROM head UNION ALL SELECT id FROM tail)
       SELECT page.*, total.n::float8 AS "__total"
         FROM total
         LEFT JOIN LATERAL (
           -- An id array, not a join: the planner cannot tell the page holds only a few ids.
           SELECT ${raw(selectColumns(this.manager, AccountEntity, 'a'))} FROM accounts a WHERE a.id = ANY (ARRAY(SELECT id FROM ids))
         ) page ON true
        ORDER BY page.id`,
    );
    return pageFromRows(rows);
  }

  /** A page of the live accounts among `ids` (callers granted on single accounts). */
  async listLiveAmong(organizationId: number, ids: number[], offset: number, limit: number): Promise<Page<AccountEntity>> {
    return pageOf<AccountEntity>(this.manager, {
      matching: sql`SELECT ${raw(selectColumns(this.manager, AccountEntity, 'a'))} FROM accounts a
                  WHERE a.organization_id = ${organizationId} AND a.deleted_at IS NULL AND a.id = ANY (${ids}::bigint[])`,
      orderBy: '"id"',
      offset,
      limit,
    });
  }
}
