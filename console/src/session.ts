/**
 * Who is signed in, and what they may do on an NRN (asked once per NRN and
 * page load), so views hide buttons the API would refuse. The API still checks
 * every request: hiding is a courtesy, not the protection.
 */
import { api, ApiError, q } from './api';

export interface Session {
  userId: string;
  organizationId: string;
  userType: string;
  expiresAt?: string;
}

let current: Session | undefined;
const permissions = new Map<string, Promise<Set<string>>>();

export async function loadSession(): Promise<Session | undefined> {
  try {
    current = await api<Session>('/console/session');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) current = undefined;
    else throw error;
  }
  return current;
}

export const session = (): Session | undefined => current;

export async function signIn(credential: { token: string } | { code: string }): Promise<Session> {
  current = await api<Session>('/console/session', { method: 'POST', body: credential });
  permissions.clear();
  return current;
}

/** Ends the session; answers where to end the identity provider's session too, for one signed in through it. */
export async function signOut(): Promise<string | undefined> {
  const body = await api<{ endSessionUrl?: string } | undefined>('/console/session', { method: 'DELETE' });
  current = undefined;
  permissions.clear();
  return typeof body?.endSessionUrl === 'string' ? body.endSessionUrl : undefined;
}

/** True when the caller holds `permission` on `nrn` (defaults to the organization). */
export async function can(permission: string, nrn?: string): Promise<boolean> {
  const target = nrn ?? `organization=${current?.organizationId ?? '0'}`;
  let held = permissions.get(target);
  if (!held) {
    held = api<{ permissions: string[] }>(`/console/session/permissions${q({ nrn: target })}`).then(
      (body) => new Set(body.permissions),
      () => new Set<string>(),
    );
    permissions.set(target, held);
  }
  return (await held).has(permission);
}
