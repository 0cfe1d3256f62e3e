import assert from 'node:assert/strict';
import { RateLimiter } from '../../api/http/rate-limiter';

describe('rate limiter (token buckets)', () => {
  it('admits a burst, then the per-minute rate, per key, and says how long to wait', () => {
    let now = 0;
    const limiter = new RateLimiter(60, 3, 100, () => now);
    assert.deepEqual([limiter.take('a'), limiter.take('a'), limiter.take('a')], [0, 0, 0]);
    assert.equal(limiter.take('a'), 1, 'one request a second comes back');
    assert.equal(limiter.take('b'), 0, 'another key has its own bucket');
    now += 1000;
    assert.equal(limiter.take('a'), 0);
    assert.equal(limiter.take('a'), 1);
    now += 60_000;
    assert.deepEqual(
      [limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')],
      [0, 0, 0, 1],
      'refilled to the burst, no more',
    );
  });

  it('keeps at most maxKeys buckets, dropping the least recently used', () => {
    const limiter = new RateLimiter(1, 1, 2, () => 0);
    assert.equal(limiter.take('a'), 0);
    assert.equal(limiter.take('b'), 0);
    assert.equal(limiter.take('c'), 0);
    assert.equal(limiter.take('b'), 60, 'b was kept');
    assert.equal(limiter.take('a'), 0, 'a was dropped, so it starts afresh');
  });

  it('peeks without spending, and keeps no bucket for a key it has not seen', () => {
    let now = 0;
    const limiter = new RateLimiter(60, 2, 1, () => now);
    assert.equal(limiter.peek('a'), 0);
    assert.deepEqual([limiter.take('a'), limiter.peek('a'), limiter.peek('a'), limiter.take('a')], [0, 0, 0, 0]);
    assert.equal(limiter.peek('a'), 1, 'spent: the peek says how long to wait');
    assert.equal(limiter.peek('b'), 0);
    assert.equal(limiter.take('a'), 1, 'peeking at b dropped nothing (maxKeys 1)');
    now += 1000;
    assert.equal(limiter.peek('a'), 0);
  });
});
