/**
 * Start-up grants of the `admin` role on whole organizations, so a fresh
 * installation has someone who can grant everything else. Idempotent: users
 * and grants that exist are left as they are.
 */
import type { DataSource } from 'typeorm';
import type { Logger } from '../../config/logger';
import { organizationNrn } from './nrn';

export interface BootstrapAdmin {
  userId: number;
  organizationId: number;
}

/** What `npm start` grants when nothing is configured: user 1 administers organization 1. */
export const DEFAULT_FIRST_ADMIN: BootstrapAdmin = { userId: 1, organizationId: 1 };

export async function bootstrapAdmins(
  dataSource: DataSource,
  admins: BootstrapAdmin[],
  logger: Logger,
  options: { defaultFirstAdmin: boolean },
): Promise<void> {
  const usingDefault = admins.length === 0 && options.defaultFirstAdmin;
  const list = usingDefault ? [DEFAULT_FIRST_ADMIN] : admins;
  if (list.length === 0) return;
  const created: Array<{ id: number }> = await dataSource.transaction(async (manager) => {
    await manager.query(
      `INSERT INTO users (id, organization_id, type)
       SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[]) ON CONFLICT (id) DO NOTHING`,
      [list.map((a) => a.userId), list.map((a) => a.organizationId), list.map(() => 'person')],
    );
    return manager.query(
      `INSERT INTO grants (user_id, nrn, role_id, status)
       SELECT u, n, (SELECT id FROM roles WHERE slug = 'admin'), 'active' FROM unnest($1::bigint[], $2::text[]) AS w(u, n)
       ON CONFLICT ON CONSTRAINT grants_unique DO NOTHING
       RETURNING id::float8 AS id`,
      [list.map((a) => a.userId), list.map((a) => organizationNrn(a.organizationId))],
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
