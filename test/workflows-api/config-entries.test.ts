import assert from 'node:assert/strict';
import { decryptSecret, encryptSecret } from '../../db/config-crypto';
import { assertDialect } from '../support/dialects';
import { allCapturedLines } from '../support/logger';
import { definition } from '../support/definitions';
import { snapshot, wfContext, type WfEnv, type WfOrg } from './support';

/** A value that must never leave the encrypted store: checked against every response here and every log line of the run. */
const CANARY = 'canary-7f3a91c2-do-not-leak';
const bodies: string[] = [];

after(function () {
  // Root-level hook: runs once after every test file of the run.
  for (const line of allCapturedLines) assert.equal(line.includes(CANARY), false, 'a log line contains the canary secret');
  for (const body of bodies) assert.equal(body.includes(CANARY), false, 'a response body contains the canary secret');
});

describe('workflows API: config entries', () => {
  let env: WfEnv;
  let org: WfOrg;
  const post = (body: object) => org.auth(env.t.request.post('/workflows/config')).send(body).then(keep);
  const keep = <T extends { text: string }>(res: T): T => {
    bodies.push(res.text);
    return res;
  };
  beforeEach(async () => {
    ({ env, org } = await wfContext());
  });

  it('upserts by name and place: 201 created, then 200 updated with the same id', async () => {
    const created = await post({ name: 'API_URL', value: 'https://a', path: '/team//x/' });
    assert.equal(created.status, 201, created.text);
    assert.match(created.body.id, /^cfg_/);
    assert.deepEqual(
      [created.body.mode, created.body.path, created.body.value, created.body.secret, created.body.createdBy],
      ['created', '/team/x', 'https://a', false, org.userId],
    );
    const updated = await post({ name: 'API_URL', value: 'https://b', path: '/team/x' });
    assert.equal(updated.status, 200);
    assert.deepEqual([updated.body.id, updated.body.mode, updated.body.value], [created.body.id, 'updated', 'https://b']);
    const other = await post({ name: 'API_URL', value: 'https://c', path: '/' });
    assert.notEqual(other.body.id, created.body.id);
  });

  it('never returns secret values, stores them encrypted, and rotates them in place', async () => {
    const created = await post({ name: 'TOKEN', value: CANARY, secret: true, path: '/' });
    assert.equal(created.status, 201);
    assert.equal(created.body.value, null);
    const id = created.body.id;
    for (const res of [
      await org.auth(env.t.request.get(`/workflows/config/${id}`)),
      await org.auth(env.t.request.get('/workflows/config?path=/')),
      await org.auth(env.t.request.get('/workflows/config?path=/a&ancestors=true')),
      await org.auth(env.t.request.patch(`/workflows/config/${id}`)).send({ value: `${CANARY}-2` }),
      await post({ name: 'TOKEN', value: `${CANARY}-3`, secret: true, path: '/' }),
    ]) {
      keep(res);
      assert.ok(res.status < 300, res.text);
    }
    const [row] = await env.db.query(`SELECT value, encrypted_value, version FROM config_entries WHERE id = $1`, [id]);
    assert.equal(row.value, null);
    assert.equal(Buffer.from(row.encrypted_value).includes(Buffer.from(CANARY)), false);
    assert.equal(row.version, 3);
  });

  it('encrypts with AES-256-GCM bound to the organization', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = encryptSecret(key, 'value', '1');
    assert.equal(decryptSecret(key, sealed, '1'), 'value');
    assert.throws(() => decryptSecret(key, sealed, '2'));
    assert.notDeepEqual(encryptSecret(key, 'value', '1'), sealed);
  });

  it('lists one place, or the whole chain with effective flags', async () => {
    const wf = await org.auth(env.t.request.put('/workflows/definitions/flow')).send(definition('F', { path: '/team/app' }));
    assert.equal(wf.status, 201);
    await post({ name: 'REGION', value: 'root', path: '/' }).then((r) => assert.equal(r.status, 201));
    await post({ name: 'REGION', value: 'team', path: '/team' });
    await post({ name: 'REGION', value: 'wf', workflow: 'flow' });
    await post({ name: 'ONLY_ROOT', value: 'r', path: '/' });
    await post({ name: 'REGION', value: 'secret-region', secret: true, path: '/team/app' });
    const one = await org.auth(env.t.request.get('/workflows/config?path=/team'));
    assert.deepEqual(
      one.body.data.map((e: { name: string; value: string }) => `${e.name}=${e.value}`),
      ['REGION=team'],
    );
    assert.equal('effective' in one.body.data[0], false);
    const chain = await org.auth(env.t.request.get('/workflows/config?workflow=flow&ancestors=true'));
    assert.equal(chain.status, 200);
    assert.deepEqual(
      chain.body.data.map((e: { name: string; value: string | null; effective: boolean; workflow?: string; path?: string }) => [
        e.workflow ? 'wf' : e.path,
        e.name,
        e.value,
        e.effective,
      ]),
      [
        ['wf', 'REGION', 'wf', true],
        ['/team/app', 'REGION', null, true],
        ['/team', 'REGION', 'team', false],
        ['/', 'ONLY_ROOT', 'r', true],
        ['/', 'REGION', 'root', false],
      ],
    );
    assert.equal(chain.body.data[0].workflow, wf.body.workflow.id);
  });

  it('rejects bad input with the config dialect and writes nothing', async () => {
    await post({ name: 'KEEP', value: 'v', path: '/' });
    const before = await snapshot(env.db, org.id);
    const cases: Array<[object, number, string]> = [
      [{ name: '1BAD', value: 'v', path: '/' }, 400, 'invalid_name'],
      [{ name: 'has-dash', value: 'v', path: '/' }, 400, 'invalid_name'],
      [{ name: 'A'.repeat(129), value: 'v', path: '/' }, 400, 'invalid_name'],
      [{ value: 'v', path: '/' }, 400, 'invalid_name'],
      [{ name: 'X', value: 'v' }, 400, 'invalid_place'],
      [{ name: 'X', value: 'v', path: '/', workflow: 'flow' }, 400, 'invalid_place'],
      [{ name: 'X', value: 'v', path: 'relative' }, 400, 'invalid_place'],
      [{ name: 'X', value: 'v', path: '/a/../b' }, 400, 'invalid_place'],
      [{ name: 'X', value: 5, path: '/' }, 400, 'invalid_value'],
      [{ name: 'X', path: '/' }, 400, 'invalid_value'],
      [{ name: 'X', value: 'v', secret: 'yes', path: '/' }, 400, 'invalid_value'],
      [{ name: 'X', value: 'x'.repeat(70_000), path: '/' }, 400, 'invalid_value'],
      [{ name: 'X', value: 'v', workflow: 'no-such-flow' }, 404, 'not_found'],
      [{ name: 'KEEP', value: 'v', secret: true, path: '/' }, 409, 'secret_flag_immutable'],
    ];
    for (const [body, status, code] of cases) {
      const res = await post(body);
      assertDialect('config', res, status);
      assert.equal(res.body.error, code, `${JSON.stringify(body).slice(0, 80)} → ${res.text}`);
    }
    for (const query of ['', '?path=/&workflow=flow', '?path=nope']) {
      const res = await org.auth(env.t.request.get(`/workflows/config${query}`));
      assertDialect('config', res, 400);
      assert.equal(res.body.error, 'invalid_place');
    }
    assert.deepEqual(await snapshot(env.db, org.id), before);
    const [row] = await env.db.query(`SELECT value, secret FROM config_entries WHERE organization_id = $1`, [org.id]);
    assert.deepEqual(row, { value: 'v', secret: false });
  });

  it('PATCH rotates the value; name, place and secret flag are immutable; nothing written on error', async () => {
    const created = await post({ name: 'V', value: 'one', path: '/' });
    const id = created.body.id;
    const rotated = await org.auth(env.t.request.patch(`/workflows/config/${id}`)).send({ value: 'two' });
    assert.equal(rotated.status, 200);
    assert.deepEqual([rotated.body.id, rotated.body.value, rotated.body.mode], [id, 'two', 'updated']);
    const cases: Array<[object, number, string]> = [
      [{ value: 'x', secret: true }, 409, 'secret_flag_immutable'],
      [{ value: 'x', name: 'W' }, 400, 'invalid_name'],
      [{ value: 'x', path: '/other' }, 400, 'invalid_place'],
      [{ value: 3 }, 400, 'invalid_value'],
      [{}, 400, 'invalid_value'],
    ];
    for (const [body, status, code] of cases) {
      const res = await org.auth(env.t.request.patch(`/workflows/config/${id}`)).send(body);
      assertDialect('config', res, status);
      assert.equal(res.body.error, code);
    }
    assert.equal((await org.auth(env.t.request.get(`/workflows/config/${id}`))).body.value, 'two');
  });

  it('GET/PATCH/DELETE of an unknown or foreign entry answer 404 not_found', async () => {
    const created = await post({ name: 'MINE', value: 'v', path: '/' });
    const id = created.body.id;
    const as = (req: import('supertest').Test) => req.set('Authorization', `Bearer ${org.other.token}`);
    for (const res of [
      await as(env.t.request.get(`/workflows/config/${id}`)),
      await as(env.t.request.patch(`/workflows/config/${id}`)).send({ value: 'x' }),
      await as(env.t.request.delete(`/workflows/config/${id}`)),
      await org.auth(env.t.request.get('/workflows/config/cfg_nope')),
    ]) {
      assertDialect('config', res, 404);
      assert.equal(res.body.error, 'not_found');
    }
    assert.equal((await as(env.t.request.get('/workflows/config?path=/'))).body.data.length, 0);
    assert.equal((await org.auth(env.t.request.delete(`/workflows/config/${id}`))).status, 204);
    assertDialect('config', await org.auth(env.t.request.delete(`/workflows/config/${id}`)), 404);
  });

  it('concurrent upserts of one name leave one row', async () => {
    const responses = await Promise.all(Array.from({ length: 30 }, (_, i) => post({ name: 'RACE', value: `v${i}`, path: '/x' })));
    assert.deepEqual([...new Set(responses.map((r) => r.status))].sort(), [200, 201]);
    assert.equal(responses.filter((r) => r.status === 201).length, 1);
    assert.equal(new Set(responses.map((r): string => String(r.body.id))).size, 1);
    const [{ n }] = await env.db.query(`SELECT count(*)::int AS n FROM config_entries WHERE organization_id = $1`, [org.id]);
    assert.equal(n, 1);
  });
});
