/**
 * Start-up grants of the `admin` role on whole organizations, so a fresh
 * installation has someone who can grant everything else. Idempotent: users
 * and grants that exist are left as they are.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from '../../config/logger';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { UserRepository } from '../../db/repositories/user-repository';
import { organizationNrn } from '../access/nrn';

/** Ids as decimal strings (or numbers below 2^53). */
export interface BootstrapAdmin {
  userId: string | number;
  organizationId: string | number;
}

/** What `npm start` grants when nothing is configured: user 1 administers organization 1. */
export const DEFAULT_FIRST_ADMIN: BootstrapAdmin = { userId: '1', organizationId: '1' };

export async function bootstrapAdmins(
  dataSource: DataSource,
  admins: BootstrapAdmin[],
  logger: Logger,
  options: { defaultFirstAdmin: boolean },
): Promise<void> {
  const usingDefault = admins.length === 0 && options.defaultFirstAdmin;
  const list = (usingDefault ? [DEFAULT_FIRST_ADMIN] : admins).map((a) => ({
    userId: String(a.userId),
    organizationId: String(a.organizationId),
  }));
  if (list.length === 0) return;
  const created = await dataSource.transaction(async (manager) => {
    await UserRepository.of(manager).recordPeople(list.map((a) => ({ id: a.userId, organizationId: a.organizationId })));
    return GrantRepository.of(manager).grantRoleOnce(
      'admin',
      list.map((a) => ({ organizationId: a.organizationId, userId: a.userId, nrn: organizationNrn(a.organizationId) })),
    );
  });
  const pairs = list.map((a) => `${a.userId}:${a.organizationId}`).join(',');
  if (usingDefault) {
    logger.info(
      { userId: DEFAULT_FIRST_ADMIN.userId, organizationId: DEFAULT_FIRST_ADMIN.organizationId, newGrant: created.length > 0 },
      'BOOTSTRAP_ADMINS is not set: user 1 holds the admin role on organization=1 (mint a token with `npm run token -- --user 1 --org 1`)',
    );
  } else if (created.length > 0) {
    logger.info({ admins: pairs, created: created.length }, 'granted the admin role to the configured bootstrap admins');
  }
}
