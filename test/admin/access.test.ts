import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Access } from '../../api/access/access';
import { NRN_LEVELS, parseNrn } from '../../api/access/nrn';
import { permits, type Permission } from '../../api/http/permissions';
import { notFound as httpNotFound } from '../../api/http/errors';

const caller = { userId: '1', organizationId: '1', userType: 'person' as const, subject: '1' };
const id = fc.constantFrom('1', '2', '*');
const nrn = fc.array(id, { minLength: 1, maxLength: 4 }).map((ids) => ids.map((v, i) => `${NRN_LEVELS[i]}=${v}`).join(':'));
const permission = fc.constantFrom<Permission>('account:read', 'account:write', 'grant:write', 'service:read');
const granted = fc.constantFrom<string[]>(['*'], ['*:read'], ['account:*'], ['service:read', 'grant:write'], []);
const grant = fc.record({ nrn, permissions: granted, roleSlug: fc.constantFrom('admin', 'viewer') });

/** Reference: prefix matching on segments, `*` in the grant matching anything. */
function covers(grantNrn: string, target: string): boolean {
  const g = grantNrn.split(':');
  const t = target.split(':');
  return (
    g.length <= t.length && g.every((segment, i) => segment === t[i] || (segment.endsWith('=*') && t[i].startsWith(segment.slice(0, -1))))
  );
}

describe('admin: access decisions', () => {
  it('allows exactly when a grant covering the target carries the permission', () => {
    fc.assert(
      fc.property(fc.array(grant, { maxLength: 5 }), nrn, permission, (grants, target, needed) => {
        const access = new Access(
          caller,
          grants.map((g) => ({ nrn: parseNrn(g.nrn)!, roleSlug: g.roleSlug, permissions: g.permissions })),
        );
        const expected = grants.some((g) => covers(g.nrn, target) && permits(g.permissions, needed));
        return access.can(needed, target) === expected;
      }),
      { numRuns: 2000 },
    );
  });

  it('answers 404 outside every organization the caller holds something in, 403 inside', () => {
    const access = new Access(caller, [{ nrn: parseNrn('organization=1:account=2')!, roleSlug: 'viewer', permissions: ['*:read'] }]);
    const notFound = () => httpNotFound('not found');
    assert.throws(() => access.require('account:read', 'organization=2', notFound), /not found/);
    assert.throws(
      () => access.require('account:read', 'organization=1', notFound),
      (e: { status?: number }) => e.status === 403,
    );
    assert.throws(
      () => access.require('account:write', 'organization=1:account=2', notFound),
      (e: { status?: number }) => e.status === 403,
    );
    access.require('account:read', 'organization=1:account=2:namespace=3', notFound);
  });

  it('matches permission wildcards', () => {
    assert.ok(permits(['*'], 'grant:write'));
    assert.ok(permits(['*:read'], 'service:read'));
    assert.ok(!permits(['*:read'], 'service:write'));
    assert.ok(permits(['service:*'], 'service:write'));
    assert.ok(!permits(['service:*'], 'action:write'));
    assert.ok(!permits([], 'account:read'));
  });
});
