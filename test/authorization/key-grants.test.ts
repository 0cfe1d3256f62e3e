/** An API key's grants narrow its owner's: the meet of two grant lists (api/access/key-grants.ts). */
import assert from 'node:assert/strict';
import { coversPermission, narrowToKey } from '../../api/access/key-grants';
import { parseNrn } from '../../api/access/nrn';

const held = (nrn: string, roleSlug: string, permissions: string[]) => ({ nrn: parseNrn(nrn)!, roleSlug, permissions });
const key = (nrn: string, role_slug: string, permissions: string[]) => ({ nrn, role_slug, permissions });

describe('API key grants', () => {
  it('covers permissions through wildcards on the granted side only', () => {
    assert.ok(coversPermission(['*'], 'workflow:read'));
    assert.ok(coversPermission(['workflow:*'], 'workflow:read'));
    assert.ok(coversPermission(['workflow:*'], 'workflow:*'));
    assert.ok(coversPermission(['*:read'], 'config:read'));
    assert.ok(!coversPermission(['*:read'], '*'));
    assert.ok(!coversPermission(['*:read'], 'config:*'));
    assert.ok(!coversPermission(['workflow:*'], '*'));
    assert.ok(!coversPermission(['workflow:*'], 'workflows:read'));
    assert.ok(!coversPermission(['workflow:read'], 'workflow:write'));
  });

  it('keeps the deeper NRN and the permissions both sides cover', () => {
    //   owner: admin on organization=1        key: viewer on organization=1:account=2
    //   → viewer's permissions on the account, no role to assign with
    const out = narrowToKey([held('organization=1', 'admin', ['*'])], [key('organization=1:account=2', 'viewer', ['*:read'])]);
    assert.deepEqual(out, [{ nrn: parseNrn('organization=1:account=2'), roleSlug: '', permissions: ['*:read'] }]);
    //   owner: developer on the account       key: admin on the organization → the developer's permissions on the account
    const wide = narrowToKey(
      [held('organization=1:account=2', 'developer', ['workflow:*', 'account:read'])],
      [key('organization=1', 'admin', ['*'])],
    );
    assert.deepEqual(wide, [{ nrn: parseNrn('organization=1:account=2'), roleSlug: '', permissions: ['workflow:*', 'account:read'] }]);
  });

  it('grants nothing where the NRNs do not nest, or the owner lost the grant', () => {
    assert.deepEqual(
      narrowToKey([held('organization=1:account=3', 'admin', ['*'])], [key('organization=1:account=2', 'admin', ['*'])]),
      [],
    );
    assert.deepEqual(narrowToKey([], [key('organization=1', 'viewer', ['*:read'])]), []);
    assert.deepEqual(narrowToKey([held('organization=1', 'admin', ['*'])], []), []);
  });

  it('keeps the role slug where both name the same role', () => {
    const out = narrowToKey([held('organization=1', 'admin', ['*'])], [key('organization=1', 'admin', ['*'])]);
    assert.equal(out[0].roleSlug, 'admin');
  });
});
