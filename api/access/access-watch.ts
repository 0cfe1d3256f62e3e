/**
 * Re-checks long-lived requests (event streams) against their callers' grants,
 * through this module's loadAccess: a request authorized when it began ends as
 * soon as a check finds that its caller no longer holds the permission on its
 * target (a grant revoked, the target moved out of the caller's reach, the
 * token's user type no longer the user's).
 *
 * Cost: every interval, one read of each watching caller's grants, shared by all
 * of that caller's requests in this process, and one read of the NRNs of their
 * targets (batched the same way); never one per request, nor one per event.
 *
 * Why an interval is safe: what a revoked caller can still receive is bounded by
 * it (default 5 s, EVENTS_ACCESS_CHECK_SECONDS); every event so delivered was
 * committed while the caller's last check still held, the same window a request
 * that started just before the revoke has; and every new request (a reconnect
 * with Last-Event-ID included) is authorized afresh. A check that cannot be made
 * (the database unreachable) ends the requests too: they fail closed, and the
 * client resumes once it is authorized again.
 */
import type { DataSource } from 'typeorm';
import type { AuthContext } from '../http/auth';
import type { Permission } from '../http/permissions';
import { loadAccess } from './access';

export interface Watched {
  permission: Permission;
  /** The target's id, as `nrnsOf` knows it. */
  target: string;
  /** Ends the request: called once, synchronously after the check that failed, so nothing is sent after it. */
  end(): void;
}

/** The NRN each target of an organization has now; a target left out of the answer is out of everyone's reach. */
export type NrnsOf = (organizationId: string, targets: string[]) => Promise<Map<string, string>>;

interface CallerWatch {
  key: string;
  auth: AuthContext;
  watched: Set<Watched>;
  timer: NodeJS.Timeout;
  checking: boolean;
}

export class AccessWatch {
  private readonly callers = new Map<string, CallerWatch>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly intervalMs: number,
    private readonly nrnsOf: NrnsOf,
  ) {}

  /** Checks `watched` every interval until it fails a check (and is ended) or the returned function is called. */
  watch(auth: AuthContext, watched: Watched): () => void {
    const key = `${auth.organizationId}/${auth.userId}/${auth.userType}`;
    let caller = this.callers.get(key);
    if (!caller) {
      const created: CallerWatch = {
        key,
        auth,
        watched: new Set(),
        timer: setInterval(() => void this.check(created), this.intervalMs),
        checking: false,
      };
      created.timer.unref();
      this.callers.set(key, (caller = created));
    }
    caller.watched.add(watched);
    const owner = caller;
    return () => this.leave(owner, watched);
  }

  /** The number of callers being watched (one grants read each per interval). */
  get size(): number {
    return this.callers.size;
  }

  private async check(caller: CallerWatch): Promise<void> {
    // A check slower than the interval is not stacked under the next one.
    const watched = [...caller.watched];
    if (caller.checking || watched.length === 0) return;
    caller.checking = true;
    try {
      let allowed: (w: Watched) => boolean;
      try {
        const [access, nrns] = await Promise.all([
          loadAccess(this.dataSource, caller.auth),
          this.nrnsOf(caller.auth.organizationId, [...new Set(watched.map((w) => w.target))]),
        ]);
        allowed = (w) => {
          const nrn = nrns.get(w.target);
          return nrn !== undefined && access.can(w.permission, nrn);
        };
      } catch {
        allowed = () => false;
      }
      for (const w of watched) {
        if (!caller.watched.has(w) || allowed(w)) continue;
        this.leave(caller, w);
        w.end();
      }
    } finally {
      caller.checking = false;
    }
  }

  /** Stops checking `watched`; the caller's timer stops with its last request. */
  private leave(caller: CallerWatch, watched: Watched): void {
    caller.watched.delete(watched);
    if (caller.watched.size > 0 || this.callers.get(caller.key) !== caller) return;
    clearInterval(caller.timer);
    this.callers.delete(caller.key);
  }
}
