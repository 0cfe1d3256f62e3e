/**
 * Token buckets by key, in this process's memory: each key may spend `burst`
 * requests at once and regains `perMinute` a minute. Per API replica (a
 * cluster of N replicas admits up to N times the rate); bounded to `maxKeys`
 * buckets, the least recently used dropped first, so random keys cannot
 * exhaust memory.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly maxKeys = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Spends one request of `key`: 0 when allowed, else the whole seconds until one would be. */
  take(key: string): number {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    this.buckets.delete(key);
    bucket.tokens = this.tokensAt(bucket, now);
    bucket.at = now;
    const wait = this.waitFor(bucket.tokens);
    if (wait === 0) bucket.tokens -= 1;
    // Re-inserted last: the Map's first key is the least recently used.
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.buckets.delete(this.buckets.keys().next().value as string);
    return wait;
  }

  /** What `take` would answer, spending nothing (and keeping no bucket for an unknown key). */
  peek(key: string): number {
    const bucket = this.buckets.get(key);
    return bucket ? this.waitFor(this.tokensAt(bucket, this.now())) : 0;
  }

  private tokensAt(bucket: { tokens: number; at: number }, now: number): number {
    return Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perMinute) / 60_000);
  }

  private waitFor(tokens: number): number {
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * 60) / this.perMinute);
  }
}
