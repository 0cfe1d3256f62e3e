/**
 * The executions list's paging: `cursor`/`nextCursor` walks (ties on created_at broken by id,
 * rows recorded during the walk, filters), strict cursors (400 invalid-cursor), limit bounds,
 * and `total` counted up to a cap (`totalCapped`). Rows are inserted directly (no Temporal):
 * the list reads PostgreSQL only.
 */
import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { executionReadsApp } from './reads-app';
import { grantAdmin } from '../support/grants';

interface ListBody {
  data: Array<{ id: string; status: string; workflowId: string }>;
  page: number;
  limit: number;
  total: number;
  totalCapped: boolean;
  nextCursor: string | null;
}

/** `count` executions of `org`, ids `<prefix>-<n>`: every third pair shares its created_at, status and workflow alternate. */
async function insertExecutions(db: DataSource, org: string, prefix: string, count: number, newerThan = 0): Promise<void> {
  await db.query(
    `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace, created_at)
     SELECT $2 || '-' || lpad(g::text, 6, '0'), $1, CASE WHEN g % 2 = 0 THEN 'wf_even' ELSE 'wf_odd' END, 1,
       CASE WHEN g % 3 = 0 THEN 'failed' ELSE 'completed' END, '{"source": "manual", "payload": {}}'::jsonb, 'default',
       timestamptz '2026-01-01' + ($4::int + g - g % 3 * (g % 2)) * interval '1 second' + interval '0.000001 second'
     FROM generate_series(1, $3::int) AS g`,
    [org, prefix, count, newerThan],
  );
}

describe('executions list paging', function () {
  this.timeout(120_000);
  let db: DataSource;
  let t: TestApp;
  let org: string;
  let auth: string;

  const list = async (query: string, expected = 200): Promise<ListBody> => {
    const res = await t.request.get(`/workflows/executions?${query}`).set('authorization', auth);
    assert.equal(res.status, expected, JSON.stringify(res.body));
    return res.body as ListBody;
  };
  /** Every page from `query` on, by cursor. */
  const walk = async (query: string, between?: () => Promise<void>): Promise<ListBody[]> => {
    const pages = [await list(query)];
    while (pages[pages.length - 1].nextCursor) {
      if (between) await between();
      pages.push(await list(`${query}&cursor=${encodeURIComponent(pages[pages.length - 1].nextCursor!)}`));
    }
    return pages;
  };

  before(async () => {
    db = await testDataSource();
    t = executionReadsApp(db);
    org = newOrganizationId();
    auth = `Bearer ${await t.token({ organizationId: org, userId: await grantAdmin(db, org) })}`;
    await insertExecutions(db, org, 'exec_page', 47);
  });

  it('walks every execution once, newest first, ties on created_at in id order, with page numbers', async () => {
    const all = await list('limit=200');
    assert.equal(all.data.length, 47);
    assert.equal(all.total, 47);
    assert.equal(all.totalCapped, false);
    assert.equal(all.nextCursor, null);
    const [{ ties }] = await db.query<Array<{ ties: number }>>(
      `SELECT count(*)::int AS ties FROM (SELECT created_at FROM executions WHERE organization_id = $1 GROUP BY created_at HAVING count(*) > 1) t`,
      [org],
    );
    assert.ok(ties > 0, 'the fixture has executions sharing a created_at');

    const pages = await walk('limit=5');
    assert.deepEqual(
      pages.map((page) => page.page),
      Array.from({ length: 10 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      pages.flatMap((page) => page.data.map((row) => row.id)),
      all.data.map((row) => row.id),
    );
    assert.ok(pages.every((page) => page.total === 47 && page.limit === 5));
    // The offset pages agree with the cursor pages, and hand out a cursor too.
    const third = await list('limit=5&page=3');
    assert.deepEqual(third.data, pages[2].data);
    assert.deepEqual((await list(`limit=5&cursor=${encodeURIComponent(third.nextCursor!)}`)).data, pages[3].data);
  });

  it('never repeats nor skips an execution while newer ones are recorded during the walk', async () => {
    const before = (await list('limit=200')).data.map((row) => row.id);
    let round = 0;
    const pages = await walk('limit=4', async () => {
      round += 1;
      // Newer than everything listed: they come before the cursor, not after it.
      await insertExecutions(db, org, `exec_late${round}`, 2, 100_000 * round);
    });
    const walked = pages.flatMap((page) => page.data.map((row) => row.id));
    assert.deepEqual(walked, before);
    assert.ok(round > 5);
    assert.equal((await list('limit=200')).data.length, before.length + 2 * round);
    await db.query(`DELETE FROM executions WHERE organization_id = $1 AND id LIKE 'exec_late%'`, [org]);
  });

  it('keeps the filters along the walk, and refuses a cursor made for other filters', async () => {
    const filtered = await list('limit=200&status=failed&workflowId=wf_even');
    assert.ok(filtered.data.length > 3);
    assert.ok(filtered.data.every((row) => row.status === 'failed' && row.workflowId === 'wf_even'));
    const pages = await walk('limit=3&status=failed&workflowId=wf_even');
    assert.deepEqual(
      pages.flatMap((page) => page.data.map((row) => row.id)),
      filtered.data.map((row) => row.id),
    );
    const cursor = encodeURIComponent(pages[0].nextCursor!);
    for (const other of ['limit=3&status=failed', 'limit=3&status=failed&workflowId=wf_odd', 'limit=3']) {
      const res = await t.request.get(`/workflows/executions?${other}&cursor=${cursor}`).set('authorization', auth);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/invalid-cursor$/);
    }
  });

  it('answers 400 invalid-cursor to a cursor it did not give out', async () => {
    const good = JSON.parse(Buffer.from((await list('limit=5')).nextCursor!, 'base64url').toString()) as Record<string, unknown>;
    const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not a cursor',
      '%%%',
      Buffer.from('{"t":').toString('base64url'),
      encode([1, 2]),
      encode({ ...good, t: '2026-01-01T00:00:00Z' }),
      encode({ ...good, t: '2026-13-45T00:00:00.000000Z' }),
      encode({ ...good, i: '' }),
      encode({ ...good, i: 7 }),
      encode({ ...good, n: -1 }),
      encode({ ...good, n: 1.5 }),
      encode({ ...good, extra: true }),
      encode({ t: good.t, i: good.i, n: good.n }),
      'x'.repeat(513),
    ];
    for (const cursor of bad) {
      const res = await t.request.get(`/workflows/executions?limit=5&cursor=${encodeURIComponent(cursor)}`).set('authorization', auth);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/(invalid-cursor|validation-failed|bad-request)$/, cursor);
    }
    // The untouched cursor is accepted.
    assert.equal((await list(`limit=5&cursor=${encode(good)}`)).data.length, 5);
  });

  it('bounds limit to 1-200', async () => {
    for (const limit of [0, 201, -1]) {
      const res = await t.request.get(`/workflows/executions?limit=${limit}`).set('authorization', auth);
      assertDialect('problem', res, 400);
    }
    assert.equal((await list('limit=200')).limit, 200);
    assert.equal((await list('limit=1')).data.length, 1);
  });

  it('counts up to 1,000 matching executions, and says when more match', async () => {
    const big = newOrganizationId();
    const bigAuth = `Bearer ${await t.token({ organizationId: big, userId: await grantAdmin(db, big) })}`;
    await insertExecutions(db, big, 'exec_many', 1_050);
    const get = async (query: string) => {
      const res = await t.request.get(`/workflows/executions?${query}`).set('authorization', bigAuth);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body as ListBody;
    };
    const first = await get('limit=50');
    assert.equal(first.total, 1_000);
    assert.equal(first.totalCapped, true);
    // A filter under the cap is counted exactly (every third is failed).
    const failed = await get('limit=50&status=failed');
    assert.equal(failed.total, 350);
    assert.equal(failed.totalCapped, false);
    // An offset page past the cap counts to its own end: its page number and total stay exact.
    const deep = await get('limit=50&page=21');
    assert.equal(deep.total, 1_050);
    assert.equal(deep.totalCapped, false);
    assert.equal(deep.data.length, 50);
    assert.equal(deep.nextCursor, null);
    // The cursor walk reaches the same rows.
    let page = first;
    let pages = 1;
    while (page.nextCursor) {
      page = await get(`limit=50&cursor=${encodeURIComponent(page.nextCursor)}`);
      pages += 1;
    }
    assert.equal(pages, 21);
    assert.equal(page.page, 21);
    assert.deepEqual(page.data, deep.data);
  });
});
