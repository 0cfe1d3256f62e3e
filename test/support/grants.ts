/**
 * Callers with grants, made the way the service makes its first admin
 * (api/admin/bootstrap.ts): API tests call the routes as real users of their
 * organization, so every engine and administration check runs.
 */
import type { DataSource } from 'typeorm';
import { bootstrapAdmins } from '../../api/admin/bootstrap';
import { GrantRepository } from '../../db/repositories/grant-repository';
import { UserRepository } from '../../db/repositories/user-repository';
import { captureLogger } from './logger';

let userCounter = 0;
/** User ids unique across test files and runs of this process (users are per organization; unique ids keep logs readable). */
export function newUserId(): number {
  userCounter += 1;
  return 500_000_000 + (process.pid % 10_000) * 10_000 + userCounter;
}

/** Records a user of `organizationId` holding the admin role on the whole organization; answers its id. */
export async function grantAdmin(db: DataSource, organizationId: string, userId: number | string = newUserId()): Promise<string> {
  await bootstrapAdmins(db, [{ userId, organizationId }], captureLogger().logger, { defaultFirstAdmin: false });
  return String(userId);
}

/**
 * Records a user of `organizationId` holding `role` on `nrn` (default: the whole
 * organization; `role` null: no grant at all); answers the user id and the grant id.
 */
export async function grantRole(
  db: DataSource,
  organizationId: string,
  role: string | null,
  nrn = `organization=${organizationId}`,
  userId: number | string = newUserId(),
): Promise<{ userId: string; grantId?: number }> {
  const id = String(userId);
  await UserRepository.of(db.manager).recordPeople([{ id, organizationId }]);
  if (role === null) return { userId: id };
  const [grant] = await GrantRepository.of(db.manager).grantRoleOnce(role, [{ organizationId, userId: id, nrn }]);
  return { userId: String(userId), grantId: grant?.id };
}
