/**
 * The access each caller had at its last guarded write, so that the next one
 * can skip reading grants: a guarded write (WorkflowRepository.publishNew)
 * compares the grants it was decided on with the grants at the instant of the
 * write, in its own statement, and answers the current grants when they
 * differ. A remembered access therefore never widens what a caller may do: a
 * revoked grant still takes effect on the next request. It is only used to
 * permit; a refusal is always decided on grants read afresh, so a new grant
 * takes effect at once too.
 */
import type { AuthContext } from '../http/auth';
import type { Access } from './access';

/** Callers remembered per process (a few hundred bytes each); the least recently used goes first. */
export const RECENT_ACCESS_CALLERS = 10_000;

export class RecentAccess {
  private readonly byCaller = new Map<string, Access>();

  constructor(private readonly capacity = RECENT_ACCESS_CALLERS) {}

  /** The caller's remembered access, when there is one (never for an API key's token: its key may be revoked since). */
  of(auth: AuthContext): Access | undefined {
    if (auth.apiKeyId !== undefined) return undefined;
    return this.byCaller.get(keyOf(auth.organizationId, auth.userId, auth.userType));
  }

  remember(access: Access): void {
    if (access.caller.apiKey) return;
    const key = keyOf(access.caller.organizationId, access.caller.userId, access.caller.userType);
    this.byCaller.delete(key);
    this.byCaller.set(key, access);
    if (this.byCaller.size > this.capacity) this.byCaller.delete(this.byCaller.keys().next().value as string);
  }
}

function keyOf(organizationId: string, userId: string, userType: string): string {
  return `${organizationId}/${userId}/${userType}`;
}
