/**
 * An API key's value: `npk_`, 8 characters that name the key in public (its
 * prefix: lists, rate limits), `_`, and 256 random bits. Only its SHA-256 is
 * stored: the value is random enough that a plain hash cannot be reversed,
 * and the exchange finds a key with one index probe.
 */
import { createHash, randomBytes } from 'node:crypto';

const PATTERN = /^npk_([A-Za-z0-9_-]{8})_([A-Za-z0-9_-]{43})$/;

export interface NewKeyValue {
  value: string;
  prefix: string;
  hash: string;
}

export function newKeyValue(): NewKeyValue {
  const prefix = `npk_${randomBytes(6).toString('base64url')}`;
  const value = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { value, prefix, hash: hashKey(value) };
}

export const hashKey = (value: string): string => createHash('sha256').update(value).digest('hex');

/** The prefix of something shaped like a key; undefined for anything else (never looked up). */
export function prefixOf(value: string): string | undefined {
  const match = PATTERN.exec(value);
  return match ? `npk_${match[1]}` : undefined;
}

/** What lists show: the prefix and a mask, never a character of the secret part. */
export const maskedKey = (prefix: string): string => `${prefix}_${'*'.repeat(8)}`;
