/**
 * An API key's grants only narrow its owner's: what a key's token may do is
 * what both the owner's grants (read afresh on each request) and the key's
 * grants (carried in the token) permit. Pure.
 */
import type { TokenGrant } from '../http/service-tokens';
import { nrnContains, parseNrn, type Nrn } from './nrn';

interface Held {
  nrn: Nrn;
  roleSlug: string;
  permissions: string[];
}

/**
 * Whether a list of granted permissions covers `wanted`, wildcards on either
 * side (`*`, `workflow:*`, `*:read`): `workflow:*` covers `workflow:read` and
 * `workflow:*`, never `*`.
 */
export function coversPermission(granted: readonly string[], wanted: string): boolean {
  return granted.some((g) => {
    if (g === '*' || g === wanted) return true;
    if (g.endsWith(':*')) return wanted.startsWith(g.slice(0, -1));
    if (g.startsWith('*:')) return wanted.endsWith(g.slice(1)) && !wanted.endsWith(':*') && wanted !== '*';
    return false;
  });
}

/**
 * The meet of the owner's grants and the key's: for each pair whose NRNs nest,
 * the deeper NRN with the permissions both cover. A role slug survives only
 * where both name the same role (so a key assigns roles only as its owner
 * could with that very role).
 */
export function narrowToKey(held: readonly Held[], keyGrants: readonly TokenGrant[]): Held[] {
  const out: Held[] = [];
  for (const k of keyGrants) {
    const keyNrn = parseNrn(k.nrn);
    if (keyNrn === undefined) continue;
    for (const h of held) {
      const nrn = nrnContains(h.nrn, keyNrn) ? keyNrn : nrnContains(keyNrn, h.nrn) ? h.nrn : undefined;
      if (nrn === undefined) continue;
      const permissions = [
        ...new Set([
          ...k.permissions.filter((p) => coversPermission(h.permissions, p)),
          ...h.permissions.filter((p) => coversPermission(k.permissions, p)),
        ]),
      ];
      if (permissions.length > 0) out.push({ nrn, roleSlug: h.roleSlug === k.role_slug ? h.roleSlug : '', permissions });
    }
  }
  return out;
}
