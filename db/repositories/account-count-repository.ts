/**
 * The `account_counts` table: an organization's live accounts, kept by the triggers on `accounts`
 * (migration 1763710000001) and never written by the service. Read alone, or inside the accounts
 * list's statement (`liveAccountsSql`), where the total must come from the same snapshot as the page.
 */
import { Repository, type EntityManager } from 'typeorm';
import { AccountCountEntity } from '../entities/account-count';
import { sql, type Sql } from '../sql-builder';

/** The organization's live accounts as an SQL expression (0 before its first account). */
export function liveAccountsSql(organizationId: unknown): Sql {
  return sql`COALESCE((SELECT live FROM account_counts WHERE organization_id = ${organizationId}), 0)`;
}

export class AccountCountRepository extends Repository<AccountCountEntity> {
  static of(manager: EntityManager): AccountCountRepository {
    return new AccountCountRepository(AccountCountEntity, manager);
  }

  /** The organization's live accounts (0 before its first). */
  async liveOf(organizationId: number): Promise<number> {
    const row = await this.findOneBy({ organizationId: String(organizationId) });
    return row === null ? 0 : Number(row.live);
  }
}
