/**
 * How the code-exec pool (./code-exec-pool.ts) shares its threads among organizations: each organization's
 * waiting jobs in order, how many threads it holds (at most `perOrganization`), and when it was last served,
 * so a freed thread goes to the waiting organization holding the fewest, the one served longest ago first.
 */

/** One organization's jobs: those waiting, in order, how many threads it holds, and when it last got one. */
export interface Share<T> {
  waiting: T[];
  running: number;
  servedAt: number;
}

export class OrganizationShares<T> {
  private readonly shares = new Map<string, Share<T>>();
  private serveCount = 0;

  constructor(private readonly perOrganization: number) {}

  /** The organization's share, made on its first job. */
  of(organizationId: string): Share<T> {
    let share = this.shares.get(organizationId);
    if (!share) {
      share = { waiting: [], running: 0, servedAt: 0 };
      this.shares.set(organizationId, share);
    }
    return share;
  }

  /** Every share now (a copy: settling a job may forget one). */
  all(): Share<T>[] {
    return [...this.shares.values()];
  }

  /** The share whose job takes the next free thread: under its cap, fewest threads held, served longest ago. */
  next(): Share<T> | undefined {
    let next: Share<T> | undefined;
    for (const share of this.shares.values()) {
      if (share.waiting.length === 0 || share.running >= this.perOrganization) continue;
      if (!next || share.running < next.running || (share.running === next.running && share.servedAt < next.servedAt)) next = share;
    }
    return next;
  }

  /** Jobs that could take a thread now (their organization is under its cap): how many threads starting may serve. */
  startable(): number {
    let count = 0;
    for (const share of this.shares.values()) count += Math.min(share.waiting.length, Math.max(0, this.perOrganization - share.running));
    return count;
  }

  /** Takes the oldest waiting job of `share` for a thread: the share holds one more, served now. */
  serve(share: Share<T>): T {
    const task = share.waiting.shift()!;
    share.running += 1;
    share.servedAt = ++this.serveCount;
    return task;
  }

  /** Takes a job that never started off its organization's queue. */
  unqueue(organizationId: string, task: T): void {
    const waiting = this.shares.get(organizationId)?.waiting;
    if (waiting?.includes(task)) waiting.splice(waiting.indexOf(task), 1);
  }

  /** A job of the organization settled (`held`: it had a thread): frees its place, and forgets an organization with nothing left. */
  release(organizationId: string, held: boolean): void {
    const share = this.shares.get(organizationId);
    if (held && share) share.running -= 1;
    if (share && share.running === 0 && share.waiting.length === 0) this.shares.delete(organizationId);
  }
}
