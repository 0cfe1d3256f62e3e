/**
 * GET /workflows/executions/stats: executions of a window counted by status per hour (or day)
 * with totals, the failing workflows, a bounded window (400 beyond 168 hours), and the
 * executions list's access rule (the permission on the whole organization; another
 * organization's executions never counted). Rows are inserted directly (no Temporal).
 */
import assert from 'node:assert/strict';
import type { DataSource } from 'typeorm';
import type { TestApp } from '../support/app';
import { newOrganizationId, testDataSource } from '../support/database';
import { assertDialect } from '../support/dialects';
import { executionReadsApp } from './reads-app';
import { grantAdmin, grantRole } from '../support/grants';

interface StatsBody {
  from: string;
  to: string;
  bucket: string;
  totals: Record<string, number>;
  buckets: Array<{ start: string; counts: Record<string, number> }>;
  failingWorkflows: Array<{ workflowId: string; workflowKey?: string; failed: number; lastFailedAt: string }>;
}

/** One execution row per entry: [id suffix, workflow, status, created_at]. */
async function insert(db: DataSource, org: string, rows: Array<[string, string, string, string]>): Promise<void> {
  for (const [suffix, workflow, status, createdAt] of rows) {
    await db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, status, trigger, temporal_namespace, created_at)
       VALUES ($1, $2, $3, $4, 1, $5, '{"source": "manual", "payload": {}}'::jsonb, 'default', $6)`,
      [`exec_stats_${org}_${suffix}`, org, `wf_${workflow}`, workflow, status, createdAt],
    );
  }
}

describe('execution stats', function () {
  this.timeout(120_000);
  let db: DataSource;
  let t: TestApp;
  let org: string;
  let auth: string;

  const stats = async (query: string, as = auth, expected = 200): Promise<StatsBody> => {
    const res = await t.request.get(`/workflows/executions/stats?${query}`).set('authorization', as);
    assert.equal(res.status, expected, JSON.stringify(res.body));
    return res.body as StatsBody;
  };

  before(async () => {
    db = await testDataSource();
    t = executionReadsApp(db);
    org = newOrganizationId();
    auth = `Bearer ${await t.token({ organizationId: org, userId: await grantAdmin(db, org) })}`;
    await insert(db, org, [
      ['a1', 'alpha', 'completed', '2026-03-01T10:05:00Z'],
      ['a2', 'alpha', 'completed', '2026-03-01T10:59:59.999Z'],
      ['a3', 'alpha', 'failed', '2026-03-01T10:30:00Z'],
      ['b1', 'beta', 'failed', '2026-03-01T11:00:00Z'],
      ['b2', 'beta', 'failed', '2026-03-01T12:10:00Z'],
      ['b3', 'beta', 'waiting', '2026-03-01T12:20:00Z'],
      ['c1', 'gamma', 'running', '2026-03-01T12:40:00Z'],
      // Outside the window: before it, and at its end (excluded).
      ['old', 'alpha', 'failed', '2026-03-01T09:59:59Z'],
      ['end', 'alpha', 'failed', '2026-03-01T13:00:00Z'],
    ]);
    // Another organization's executions in the same hours are never counted.
    const other = newOrganizationId();
    await insert(db, other, [
      ['x1', 'alpha', 'failed', '2026-03-01T10:10:00Z'],
      ['x2', 'alpha', 'completed', '2026-03-01T11:10:00Z'],
    ]);
  });

  it('counts the executions of each hour by status, with totals', async () => {
    const body = await stats('from=2026-03-01T10:00:00Z&to=2026-03-01T13:00:00Z');
    assert.equal(body.bucket, 'hour');
    assert.equal(body.from, '2026-03-01T10:00:00.000Z');
    assert.equal(body.to, '2026-03-01T13:00:00.000Z');
    assert.deepEqual(body.buckets, [
      { start: '2026-03-01T10:00:00.000Z', counts: { completed: 2, failed: 1 } },
      { start: '2026-03-01T11:00:00.000Z', counts: { failed: 1 } },
      { start: '2026-03-01T12:00:00.000Z', counts: { failed: 1, waiting: 1, running: 1 } },
    ]);
    assert.deepEqual(body.totals, { running: 1, waiting: 1, completed: 2, failed: 3, cancelled: 0, terminated: 0 });
  });

  it('names the workflows with the most failures, most first', async () => {
    const body = await stats('from=2026-03-01T10:00:00Z&to=2026-03-01T13:00:00Z');
    assert.deepEqual(body.failingWorkflows, [
      { workflowId: 'wf_beta', workflowKey: 'beta', failed: 2, lastFailedAt: '2026-03-01T12:10:00.000Z' },
      { workflowId: 'wf_alpha', workflowKey: 'alpha', failed: 1, lastFailedAt: '2026-03-01T10:30:00.000Z' },
    ]);
  });

  it('rounds `from` down to the bucket, and counts by day', async () => {
    const hourly = await stats('from=2026-03-01T10:45:00Z&to=2026-03-01T11:30:00Z');
    assert.equal(hourly.from, '2026-03-01T10:00:00.000Z');
    assert.deepEqual(
      hourly.buckets.map((b) => b.start),
      ['2026-03-01T10:00:00.000Z', '2026-03-01T11:00:00.000Z'],
    );
    // Only what was created before `to` is counted in the last bucket.
    assert.deepEqual(hourly.buckets[1].counts, { failed: 1 });
    const daily = await stats('from=2026-02-28T12:00:00Z&to=2026-03-02T00:00:00Z&bucket=day');
    assert.deepEqual(daily.buckets, [
      { start: '2026-02-28T00:00:00.000Z', counts: {} },
      { start: '2026-03-01T00:00:00.000Z', counts: { completed: 2, failed: 5, waiting: 1, running: 1 } },
    ]);
  });

  it('answers 400 beyond 168 hours, to an empty window and to bad values', async () => {
    assert.equal((await stats('from=2026-03-01T00:00:00Z&to=2026-03-08T00:00:00Z')).buckets.length, 168);
    for (const query of [
      'from=2026-03-01T00:00:00Z&to=2026-03-08T00:00:01Z',
      'from=2026-03-01T00:00:00Z&to=2026-03-01T00:00:00Z',
      'from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z',
      'from=yesterday',
      'to=2026-13-01T00:00:00Z',
      'bucket=minute',
    ]) {
      const res = await t.request.get(`/workflows/executions/stats?${query}`).set('authorization', auth);
      assertDialect('problem', res, 400);
      assert.match(res.body.type, /\/(stats-window-invalid|validation-failed)$/, query);
    }
  });

  it('defaults to the last 24 hours', async () => {
    const body = await stats('');
    const span = Date.parse(body.to) - Date.parse(body.from);
    assert.ok(span >= 24 * 3_600_000 && span < 25 * 3_600_000, `${body.from} – ${body.to}`);
    assert.ok(body.buckets.length === 24 || body.buckets.length === 25);
  });

  it('is read by whoever may list executions, and by no one else', async () => {
    const viewer = await grantRole(db, org, 'viewer');
    const viewerAuth = `Bearer ${await t.token({ organizationId: org, userId: viewer.userId })}`;
    assert.equal((await stats('from=2026-03-01T10:00:00Z&to=2026-03-01T13:00:00Z', viewerAuth)).totals.failed, 3);
    // Grants on a narrower NRN only: the list answers 403, and so do the stats.
    const narrow = await grantRole(db, org, 'viewer', `organization=${org}:account=7`);
    const narrowAuth = `Bearer ${await t.token({ organizationId: org, userId: narrow.userId })}`;
    // No role in the organization: 404, as the list.
    const stranger = await grantRole(db, org, null);
    const strangerAuth = `Bearer ${await t.token({ organizationId: org, userId: stranger.userId })}`;
    for (const [as, status] of [
      [narrowAuth, 403],
      [strangerAuth, 404],
    ] as const) {
      const list = await t.request.get('/workflows/executions').set('authorization', as);
      const res = await t.request.get('/workflows/executions/stats').set('authorization', as);
      assert.equal(list.status, status);
      assertDialect('problem', res, status);
    }
  });
});
