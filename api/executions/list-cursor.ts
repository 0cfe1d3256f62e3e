/**
 * The executions list's opaque `cursor`: where the next page starts in the list's order
 * (created_at DESC, id DESC), as base64url of a small JSON document. It also carries how
 * many rows come before that page (so the page number stays meaningful) and a digest of
 * the filters it was made for: a cursor only continues the list it came from. Anything
 * else a client sends is refused (400 `invalid-cursor`), never guessed at.
 */
import { createHash } from 'node:crypto';
import { invalidCursor } from './errors';

export interface ListPosition {
  /** created_at of the last row of the previous page, in microseconds (`2026-11-28T12:00:00.123456Z`). */
  createdAt: string;
  /** id of that row. */
  id: string;
  /** Rows before the next page. */
  before: number;
}

/** At most this long: a cursor is a handful of fields. */
const MAX_CURSOR_LENGTH = 512;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/** A digest of the filters (as the client sent them): a cursor continues only the list with the same ones. */
export function filterDigest(filters: Record<string, string | undefined>): string {
  const named = Object.keys(filters)
    .sort()
    .map((key) => [key, filters[key] ?? null]);
  return createHash('sha256').update(JSON.stringify(named)).digest('base64url').slice(0, 16);
}

export function encodeCursor(position: ListPosition, digest: string): string {
  return Buffer.from(JSON.stringify({ t: position.createdAt, i: position.id, n: position.before, f: digest })).toString('base64url');
}

export function decodeCursor(cursor: string, digest: string): ListPosition {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor('malformed');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('malformed');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidCursor('malformed');
  const { t, i, n, f, ...rest } = parsed as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw invalidCursor('malformed');
  if (typeof t !== 'string' || !TIMESTAMP.test(t) || Number.isNaN(Date.parse(t))) throw invalidCursor('malformed');
  if (typeof i !== 'string' || i.length === 0 || i.length > 200) throw invalidCursor('malformed');
  if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw invalidCursor('malformed');
  if (f !== digest) throw invalidCursor('made for other filters');
  return { createdAt: t, id: i, before: n };
}
