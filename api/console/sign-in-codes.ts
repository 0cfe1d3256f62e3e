/**
 * One-time sign-in codes for the console's development sign-in link: `npm start`
 * prints a link carrying a random code; the console exchanges it once, within
 * {@link SIGN_IN_CODE_TTL_MS}, for a session cookie. Codes live in the memory of
 * the process that printed the link (the one-process `npm start`), are kept by
 * their SHA-256 (a lookup never compares secrets directly) and are forgotten when
 * used or expired.
 */
import { createHash, randomBytes } from 'node:crypto';

export const SIGN_IN_CODE_TTL_MS = 15 * 60_000;
/** Codes outstanding at once; the oldest is dropped past it. */
const MAX_CODES = 100;

export interface SignInIdentity {
  userId: string;
  organizationId: string;
}

export class SignInCodes {
  private readonly codes = new Map<string, { identity: SignInIdentity; until: number }>();

  constructor(
    private readonly ttlMs = SIGN_IN_CODE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh code for `identity`, valid once within the time to live. */
  issue(identity: SignInIdentity): string {
    this.prune();
    if (this.codes.size >= MAX_CODES) this.codes.delete(this.codes.keys().next().value as string);
    const code = randomBytes(32).toString('base64url');
    this.codes.set(digest(code), { identity, until: this.now() + this.ttlMs });
    return code;
  }

  /** The identity of a live code, which is used up; undefined for an unknown, used or expired code. */
  redeem(code: string): SignInIdentity | undefined {
    const key = digest(code);
    const entry = this.codes.get(key);
    this.codes.delete(key);
    return entry && entry.until > this.now() ? entry.identity : undefined;
  }

  private prune(): void {
    const now = this.now();
    for (const [key, entry] of this.codes) if (entry.until <= now) this.codes.delete(key);
  }
}

const digest = (code: string): string => createHash('sha256').update(code).digest('hex');
