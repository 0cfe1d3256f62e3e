/**
 * The re-check of long-lived requests (api/access/access-watch.ts) on the real
 * database: one grants read per caller and interval, shared by all of that
 * caller's requests, and a failed check ends every request it fails.
 */
import assert from 'node:assert/strict';
import { AccessWatch, type Watched } from '../../api/access/access-watch';
import { GrantRepository, type CallerKey } from '../../db/repositories/grant-repository';
import { newOrganizationId, testDataSource } from '../support/database';
import { grantRole } from '../support/grants';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('access watch: open requests re-checked against their callers’ grants', function () {
  this.timeout(30_000);

  it('reads each caller’s grants once per interval for all its requests, and ends them when the grant goes', async () => {
    const db = await testDataSource();
    const org = newOrganizationId();
    const { userId, grantId } = await grantRole(db, org, 'viewer', `organization=${org}:account=7`);
    const other = await grantRole(db, org, 'viewer', `organization=${org}:account=7`);
    const reads: string[] = [];
    const lookups: string[][] = [];
    const prototype = GrantRepository.prototype;
    const original = Object.getOwnPropertyDescriptor(prototype, 'activeOfCaller')!;
    Object.defineProperty(prototype, 'activeOfCaller', {
      ...original,
      value(this: GrantRepository, caller: CallerKey) {
        reads.push(caller.id);
        return (original.value as GrantRepository['activeOfCaller']).call(this, caller);
      },
    });
    try {
      const watch = new AccessWatch(db, 200, (_org, targets) => {
        lookups.push([...targets].sort());
        return Promise.resolve(new Map(targets.map((t) => [t, `organization=${org}:account=${t}`])));
      });
      const ended: string[] = [];
      const watched = (name: string, target: string): Watched => ({ permission: 'workflow:read', target, end: () => ended.push(name) });
      const auth = { organizationId: org, userId, userType: 'person' as const };
      const stops = [
        watch.watch(auth, watched('a', '7')),
        watch.watch(auth, watched('b', '7')),
        watch.watch(auth, watched('c', '8')),
        watch.watch({ ...auth, userId: other.userId }, watched('d', '7')),
      ];
      assert.equal(watch.size, 2, 'one entry per caller');
      await sleep(1100);
      // Target 8 is out of the caller's reach: only its request ended, at the first check.
      assert.deepEqual(ended, ['c']);
      const mine = reads.filter((id) => id === userId).length;
      const theirs = reads.filter((id) => id === other.userId).length;
      // Three requests of one caller cost what the one request of another does: one grants read per check.
      assert.ok(mine >= 1 && mine <= theirs + 1, `grants reads: ${mine} for three requests, ${theirs} for one`);
      // And one lookup of the targets per check, each target once.
      assert.ok(lookups.some((targets) => targets.join() === '7,8'));
      assert.ok(lookups.every((targets) => new Set(targets).size === targets.length));
      stops[2]();
      await GrantRepository.of(db.manager).delete(grantId!);
      await sleep(1000);
      assert.deepEqual(ended.sort(), ['a', 'b', 'c'], 'both remaining requests of the revoked caller ended; the other caller’s did not');
      for (const stop of stops) stop();
      assert.equal(watch.size, 0, 'no timer is left once the last request leaves');
    } finally {
      Object.defineProperty(prototype, 'activeOfCaller', original);
    }
  });
});
