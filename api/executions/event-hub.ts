/**
 * One LISTEN per API process for new execution events (a trigger NOTIFYs
 * `execution_events` with the execution id, see the 1763740000000 migration),
 * fanned out to the streams that follow that execution. The listening
 * connection is opened when the first stream follows, closed LISTEN_LINGER_MS
 * after the last one left (a replica with no streams soon holds no connection;
 * one-at-a-time clients do not open and close a connection, a PostgreSQL
 * backend, per request), and re-opened after a failure; streams also re-read on a slow
 * timer, so a notification lost while it was down delays an event by at most that
 * interval, never loses it. A follower that awaits `listening()` before its first read
 * cannot miss a notification of what commits after that read.
 *
 * It also counts open streams per organization, so one tenant cannot hold
 * every connection of a replica, and per user, so one member cannot hold
 * every stream of its organization.
 */
import type { DataSource } from 'typeorm';
import { listenForExecutionEvents, type ExecutionEventListener } from '../../db/repositories/execution-event-listener';

/** How often a follower re-reads without a notification: the safety net, the most a lost notification costs. */
export const EVENT_FALLBACK_POLL_MS = 5_000;

/** Whose stream it is: users are keyed by (organization, id). */
export interface StreamOwner {
  organizationId: string;
  userId: string;
}
const RECONNECT_MS = 1000;
/** How long the listening connection stays open with no follower, for the next one. */
export const LISTEN_LINGER_MS = 30_000;

export class ExecutionEventHub {
  private readonly followers = new Map<string, Set<() => void>>();
  /** Open streams by organization, and by user of an organization. */
  private readonly streams = new Map<string, number>();
  private readonly userStreams = new Map<string, number>();
  private listener?: Promise<ExecutionEventListener | undefined>;
  /** Closes the listening connection once no one has followed for LISTEN_LINGER_MS. */
  private linger?: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly dataSource: DataSource) {}

  /** Calls `wake` whenever events of the execution are committed; returns the unfollow function. */
  follow(executionId: string, wake: () => void): () => void {
    clearTimeout(this.linger);
    this.listener ??= this.listen();
    let set = this.followers.get(executionId);
    if (!set) this.followers.set(executionId, (set = new Set()));
    set.add(wake);
    return () => {
      set.delete(wake);
      if (set.size === 0) this.followers.delete(executionId);
      if (this.followers.size === 0) {
        clearTimeout(this.linger);
        this.linger = setTimeout(() => void this.stopListening(), LISTEN_LINGER_MS).unref();
      }
    };
  }

  /** Resolves once the process listens (or listening failed: the followers' slow re-read covers that). */
  async listening(): Promise<void> {
    await this.listener?.catch(() => undefined);
  }

  /**
   * Takes one stream slot of the organization and one of the user: answers which
   * share is full instead when the organization holds `max.perOrganization`
   * streams already, or the user `max.perUser` (so one member cannot take the
   * organization's whole share).
   */
  openStream(owner: StreamOwner, max: { perOrganization: number; perUser: number }): 'opened' | 'organization-full' | 'user-full' {
    const user = userKey(owner);
    if ((this.streams.get(owner.organizationId) ?? 0) >= max.perOrganization) return 'organization-full';
    if ((this.userStreams.get(user) ?? 0) >= max.perUser) return 'user-full';
    increment(this.streams, owner.organizationId);
    increment(this.userStreams, user);
    return 'opened';
  }

  /** Gives back the slots {@link openStream} took. */
  closeStream(owner: StreamOwner): void {
    decrement(this.streams, owner.organizationId);
    decrement(this.userStreams, userKey(owner));
  }

  /** Stops listening and wakes every follower (their streams see the hub closed and end). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.linger);
    for (const set of this.followers.values()) for (const wake of set) wake();
    await this.stopListening();
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private async listen(): Promise<ExecutionEventListener | undefined> {
    if (this.closed) return undefined;
    try {
      return await listenForExecutionEvents(
        this.dataSource,
        (executionId) => {
          for (const wake of this.followers.get(executionId) ?? []) wake();
        },
        () => this.relisten(),
      );
    } catch {
      this.relisten();
      return undefined;
    }
  }

  /** Closes the listening connection (destroyed, not pooled: it is still subscribed). */
  private async stopListening(): Promise<void> {
    const listening = this.listener;
    this.listener = undefined;
    const listener = await listening?.catch(() => undefined);
    listener?.close();
  }

  /** Drops a failed listening connection and opens another shortly (streams poll slowly meanwhile). */
  private relisten(): void {
    this.listener = undefined;
    if (this.closed) return;
    setTimeout(() => {
      if (!this.closed && this.followers.size > 0) this.listener ??= this.listen();
    }, RECONNECT_MS).unref();
  }
}

const userKey = (owner: StreamOwner): string => `${owner.organizationId}/${owner.userId}`;

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
