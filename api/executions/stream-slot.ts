/**
 * The per-replica share of held connections: an event stream and a read that
 * waits for the end (`?wait=`) both hold a connection for long, so both take one
 * slot of the organization's EVENTS_MAX_STREAMS_PER_ORGANIZATION and of the
 * user's EVENTS_MAX_STREAMS_PER_USER, and both answer the same 429 when the
 * share is full.
 */
import type { ExecutionDeps } from './deps';
import type { StreamOwner } from './event-hub';
import { tooManyStreams } from './errors';

/** Seconds a refused client is told to wait before trying again. */
const RETRY_AFTER_SECONDS = 5;
const ALSO_WAITS = 'a read that waits (?wait=) holds one too';

/** Takes one slot of the caller's shares, or throws the 429 naming the share that is full; give it back with `eventHub.closeStream(owner)`. */
export function takeStreamSlot(deps: Pick<ExecutionDeps, 'eventHub' | 'limits'>, owner: StreamOwner): void {
  const { limits } = deps;
  const opened = deps.eventHub.openStream(owner, { perOrganization: limits.maxStreamsPerOrganization, perUser: limits.maxStreamsPerUser });
  if (opened === 'organization-full') {
    throw tooManyStreams(
      `This organization already has ${limits.maxStreamsPerOrganization} open event streams on this server (EVENTS_MAX_STREAMS_PER_ORGANIZATION); ${ALSO_WAITS}.`,
      RETRY_AFTER_SECONDS,
    );
  }
  if (opened === 'user-full') {
    throw tooManyStreams(
      `You already have ${limits.maxStreamsPerUser} open event streams on this server (EVENTS_MAX_STREAMS_PER_USER); ${ALSO_WAITS}.`,
      RETRY_AFTER_SECONDS,
    );
  }
}
