import assert from 'node:assert/strict';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import type { DataSource } from 'typeorm';
import type { ExecutionStatus } from '../../db/entities/execution';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { ExecutionLogRepository } from '../../db/repositories/execution-log-repository';
import { ExecutionRetentionRepository } from '../../db/repositories/execution-retention-repository';
import { ExecutionStepRepository } from '../../db/repositories/execution-step-repository';
import { ExecutionWaitRepository } from '../../db/repositories/execution-wait-repository';
import { SignalDeliveryRepository } from '../../db/repositories/signal-delivery-repository';
import { RetentionSweeper, type RetentionSweepStep } from '../../executions';
import { applyNamespaceRetention } from '../../startup/temporal-retention';
import type { StepRecord } from '../../workflows/engine';
import { recordExecution } from '../support/database';
import { assertDialect } from '../support/dialects';
import { grantRole } from '../support/grants';
import { captureLogger } from '../support/logger';
import { publish, TEMPORAL_UI, useExecEnv } from './support';

const DAY_MS = 86_400_000;

/** start (manual) ──▶ log. */
const greet = (key: string) => ({
  name: 'Greet',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    log: { type: 'module', pluginType: 'log', config: { message: 'hello' } },
  },
  connections: [{ from: 'start', to: 'log' }],
});

interface Seed {
  status: ExecutionStatus;
  /** For an ended execution: how long ago it ended. */
  endedDaysAgo?: number;
  workflowId?: string;
  parent?: string;
}

/** Records an execution with one row in every table hanging off it (step, log, event, wait, signal delivery). */
async function seed(db: DataSource, organizationId: string, options: Seed): Promise<string> {
  const id = await recordExecution(db, {
    organizationId,
    workflowId: options.workflowId ?? 'wf_retention',
    parentExecutionId: options.parent,
  });
  const m = db.manager;
  const ended = !['running', 'waiting'].includes(options.status);
  await m.query(`UPDATE executions SET status = $2, completed_at = $3 WHERE id = $1`, [
    id,
    options.status,
    ended ? new Date(Date.now() - (options.endedDaysAgo ?? 0) * DAY_MS) : null,
  ]);
  const record = { stepId: 'log', status: 'completed', run: 1 } as unknown as StepRecord;
  await new ExecutionStepRepository(m).upsertRecords(id, [record]);
  await new ExecutionLogRepository(m).insert([
    { executionId: id, seq: 0, stepId: 'log', stepSeq: 0, level: 'info', message: 'one', metadata: null, loggedAt: new Date() },
    { executionId: id, seq: 1, stepId: 'log', stepSeq: 1, level: 'info', message: 'two', metadata: null, loggedAt: new Date() },
  ]);
  await new ExecutionEventRepository(m).insert({ executionId: id, seq: 0, type: 'step.completed', data: {}, createdAt: new Date() });
  await new ExecutionWaitRepository(m).insert({
    executionId: id,
    waitId: 'w1',
    stepId: 'log',
    signalNames: ['go'],
    correlationKey: null,
    since: new Date(),
    timeoutAt: null,
    callbackUrl: null,
  });
  await new SignalDeliveryRepository(m).insert({
    organizationId,
    idempotencyKey: `key-${id}`,
    target: `execution:${id}`,
    signalId: 'sig',
    status: 'delivered',
    executionId: id,
    started: false,
    claimedAt: new Date(),
    expiresAt: new Date(Date.now() + DAY_MS),
  });
  return id;
}

/** How many rows each table holds for the execution (all zero once it is removed). */
async function rowsOf(db: DataSource, id: string): Promise<Record<string, number>> {
  const [row] = await db.query<Array<Record<string, number>>>(
    `SELECT (SELECT count(*) FROM executions WHERE id = $1)::int AS executions,
            (SELECT count(*) FROM execution_steps WHERE execution_id = $1)::int AS steps,
            (SELECT count(*) FROM execution_logs WHERE execution_id = $1)::int AS logs,
            (SELECT count(*) FROM execution_events WHERE execution_id = $1)::int AS events,
            (SELECT count(*) FROM execution_waits WHERE execution_id = $1)::int AS waits,
            (SELECT count(*) FROM signal_deliveries WHERE execution_id = $1)::int AS "signalDeliveries"`,
    [id],
  );
  return row;
}

const KEPT = { executions: 1, steps: 1, logs: 2, events: 1, waits: 1, signalDeliveries: 1 };
const GONE = { executions: 0, steps: 0, logs: 0, events: 0, waits: 0, signalDeliveries: 0 };

describe('execution retention', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ withWorker: false, org: 'each' });
  const sweeper = (options: { defaultDays?: number; batchSize?: number; steps?: RetentionSweepStep[] } = {}) =>
    new RetentionSweeper({
      dataSource: env.db,
      defaultDays: options.defaultDays ?? 30,
      batchSize: options.batchSize ?? 500,
      pauseMs: 0,
      steps: options.steps,
    });

  describe('the sweep', () => {
    it('removes exactly the ended executions past their time, with their steps, logs, events, waits and signal deliveries', async () => {
      const expired = await Promise.all(
        (['completed', 'failed', 'cancelled', 'terminated'] as const).map((status) => seed(env.db, org.id, { status, endedDaysAgo: 31 })),
      );
      const recent = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 29 });
      const running = await seed(env.db, org.id, { status: 'running' });
      const waiting = await seed(env.db, org.id, { status: 'waiting' });
      // A running row created long ago is still running: age never removes it.
      await env.db.query(`UPDATE executions SET created_at = now() - interval '400 days' WHERE id = ANY($1)`, [[running, waiting]]);

      const counts = await sweeper().sweepOnce();
      for (const id of expired) assert.deepEqual(await rowsOf(env.db, id), GONE, id);
      for (const id of [recent, running, waiting]) assert.deepEqual(await rowsOf(env.db, id), KEPT, id);
      assert.ok(counts.executions >= 4 && counts.logs >= 8 && counts.signalDeliveries >= 4, JSON.stringify(counts));
    });

    it('keeps an ended child while its parent or root is open, and a parent while a child of it is open', async () => {
      // root (waiting) ─▶ parent (completed, 40 days) ─▶ child (completed, 40 days)
      const root = await seed(env.db, org.id, { status: 'waiting' });
      const parent = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 40, parent: root });
      const child = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 40, parent });
      // ended (40 days) ─▶ open child (running)
      const endedParent = await seed(env.db, org.id, { status: 'failed', endedDaysAgo: 40 });
      const openChild = await seed(env.db, org.id, { status: 'running', parent: endedParent });
      await sweeper().sweepOnce();
      for (const id of [root, parent, child, endedParent, openChild]) assert.deepEqual(await rowsOf(env.db, id), KEPT, id);

      // Once the root and the child end, the expired ones go (the root ended now: it stays).
      await env.db.query(`UPDATE executions SET status = 'completed', completed_at = now() WHERE id = ANY($1)`, [[root, openChild]]);
      await sweeper().sweepOnce();
      for (const id of [parent, child, endedParent]) assert.deepEqual(await rowsOf(env.db, id), GONE, id);
      for (const id of [root, openChild]) assert.deepEqual(await rowsOf(env.db, id), KEPT, id);
    });

    it('follows a workflow override, else the organization setting, else the default (0: forever); a change applies to ended executions', async () => {
      const settings = new ExecutionRetentionRepository(env.db.manager);
      const shortWf = `wf_short_${org.id}`;
      const longWf = `wf_long_${org.id}`;
      await settings.put(org.id, '', 10, null);
      await settings.put(org.id, shortWf, 2, null);
      await settings.put(org.id, longWf, 100, null);
      const orgExpired = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 11 });
      const orgKept = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 9 });
      const shortExpired = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 3, workflowId: shortWf });
      const shortKept = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 1, workflowId: shortWf });
      const longKept = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 50, workflowId: longWf });

      // The default keeps forever here: only the settings remove anything.
      await sweeper({ defaultDays: 0 }).sweepOnce();
      for (const id of [orgExpired, shortExpired]) assert.deepEqual(await rowsOf(env.db, id), GONE, id);
      for (const id of [orgKept, shortKept, longKept]) assert.deepEqual(await rowsOf(env.db, id), KEPT, id);

      // Shortened after they ended: the next sweep applies it.
      await settings.put(org.id, longWf, 40, null);
      await settings.removeSetting(org.id);
      await sweeper({ defaultDays: 0 }).sweepOnce();
      assert.deepEqual(await rowsOf(env.db, longKept), GONE);
      assert.deepEqual(await rowsOf(env.db, orgKept), KEPT, 'no organization setting and a default of forever: kept');
    });

    it('removes in batches of at most batchSize until one comes back short', async () => {
      const ids = await Promise.all(Array.from({ length: 7 }, () => seed(env.db, org.id, { status: 'completed', endedDaysAgo: 60 })));
      const s = sweeper({ batchSize: 3 });
      const first = await s.sweepBatch();
      assert.ok(first.removed.executions <= 3 && first.last !== undefined, JSON.stringify(first));
      const counts = await s.sweepOnce();
      assert.ok(counts.batches >= 2, JSON.stringify(counts));
      for (const id of ids) assert.deepEqual(await rowsOf(env.db, id), GONE, id);
      assert.equal((await s.sweepOnce()).executions, 0, 'nothing left');
    });

    it('lets sweeps on several replicas run at once without removing a row twice or waiting on each other', async () => {
      const ids = await Promise.all(Array.from({ length: 24 }, () => seed(env.db, org.id, { status: 'completed', endedDaysAgo: 45 })));
      const results = await Promise.all([1, 2, 3].map(() => sweeper({ batchSize: 4 }).sweepOnce()));
      for (const id of ids) assert.deepEqual(await rowsOf(env.db, id), GONE, id);
      // Each execution was removed by exactly one sweep (other files' old rows may add to the totals, never subtract).
      assert.ok(results.reduce((sum, counts) => sum + counts.executions, 0) >= ids.length, JSON.stringify(results));
    });

    it('skips a row another replica holds instead of waiting for it, and takes it at a later sweep', async () => {
      const held = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 50 });
      const free = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 50 });
      const other = env.db.createQueryRunner();
      await other.connect();
      await other.startTransaction();
      try {
        await other.query(`SELECT id FROM executions WHERE id = $1 FOR UPDATE`, [held]);
        // Would hang (and time out) if the sweep waited for the lock.
        await sweeper().sweepOnce();
        assert.deepEqual(await rowsOf(env.db, free), GONE);
        assert.deepEqual(await rowsOf(env.db, held), KEPT);
      } finally {
        await other.rollbackTransaction();
        await other.release();
      }
      await sweeper().sweepOnce();
      assert.deepEqual(await rowsOf(env.db, held), GONE);
    });

    it('runs extra sweep steps at their own cutoff, until one removes fewer than a batch', async () => {
      const calls: Array<{ cutoff: Date; limit: number }> = [];
      let left = 5;
      const step: RetentionSweepStep = {
        name: 'auditEntries',
        days: 30,
        deleteOlderThan(cutoff, limit) {
          calls.push({ cutoff, limit });
          const removed = Math.min(left, limit);
          left -= removed;
          return Promise.resolve(removed);
        },
      };
      const now = new Date('2030-01-31T00:00:00Z');
      const counts = await sweeper({ defaultDays: 0, batchSize: 2, steps: [step] }).sweepOnce(now);
      assert.equal(counts.auditEntries, 5);
      assert.equal(calls.length, 3);
      assert.equal(calls[0].cutoff.toISOString(), '2030-01-01T00:00:00.000Z');
      assert.ok(calls.every((call) => call.limit === 2));
    });
  });

  describe('the retention routes', () => {
    it('reads, sets and removes the organization setting and a workflow override, resolved workflow → organization → default', async () => {
      const wf = await publish(env, org, greet(`ret-${org.id}`));
      const initial = await org.auth(env.t.request.get('/workflows/retention'));
      assert.equal(initial.status, 200, JSON.stringify(initial.body));
      assert.deepEqual(initial.body, {
        organizationId: org.id,
        retentionDays: env.limits.executionRetentionDays,
        source: 'default',
        defaultDays: 30,
      });

      const set = await org.auth(env.t.request.put('/workflows/retention')).send({ retentionDays: 90 });
      assert.equal(set.status, 201, JSON.stringify(set.body));
      assert.equal(set.body.retentionDays, 90);
      assert.equal(set.body.source, 'organization');
      assert.equal(set.body.updatedBy, org.userId);
      assert.equal((await org.auth(env.t.request.put('/workflows/retention')).send({ retentionDays: 60 })).status, 200);

      const inherited = await org.auth(env.t.request.get(`/workflows/definitions/${wf}/retention`));
      assert.equal(inherited.status, 200);
      assert.deepEqual(
        { days: inherited.body.retentionDays, source: inherited.body.source, workflowId: inherited.body.workflowId },
        { days: 60, source: 'organization', workflowId: wf },
      );
      const own = await org.auth(env.t.request.put(`/workflows/definitions/${wf}/retention`)).send({ retentionDays: 7 });
      assert.equal(own.status, 201, JSON.stringify(own.body));
      assert.deepEqual([own.body.retentionDays, own.body.source], [7, 'workflow']);
      assert.deepEqual(await new ExecutionRetentionRepository(env.db.manager).settingsFor(org.id, wf), { workflow: 7, organization: 60 });

      assert.equal((await org.auth(env.t.request.delete(`/workflows/definitions/${wf}/retention`))).status, 204);
      assert.equal((await org.auth(env.t.request.get(`/workflows/definitions/${wf}/retention`))).body.source, 'organization');
      assert.equal((await org.auth(env.t.request.delete('/workflows/retention'))).status, 204);
      assert.equal((await org.auth(env.t.request.get(`/workflows/definitions/${wf}/retention`))).body.source, 'default');
      // The other organization sees none of it.
      assert.equal((await org.otherAuth(env.t.request.get(`/workflows/definitions/${wf}/retention`))).status, 404);
    });

    it('refuses days out of bounds with a problem naming the field', async () => {
      const wf = await publish(env, org, greet(`ret-${org.id}`));
      for (const [path, body] of [
        ['/workflows/retention', { retentionDays: 0 }],
        ['/workflows/retention', { retentionDays: 3651 }],
        [`/workflows/definitions/${wf}/retention`, { retentionDays: 1.5 }],
        [`/workflows/definitions/${wf}/retention`, { retentionDays: '30' }],
        [`/workflows/definitions/${wf}/retention`, {}],
      ] as const) {
        const res = await org.auth(env.t.request.put(path)).send(body);
        assertDialect('problem', res, 400);
        assert.match(JSON.stringify(res.body), /retentionDays/, JSON.stringify(res.body));
      }
      assert.equal((await new ExecutionRetentionRepository(env.db.manager).settingsFor(org.id, wf)).organization, undefined);
    });

    it('answers 403 to a caller who may read but not write, and 404 for an unknown workflow', async () => {
      const wf = await publish(env, org, greet(`ret-${org.id}`));
      const { userId } = await grantRole(env.db, org.id, 'viewer');
      const viewer = await env.t.token({ organizationId: org.id, userId });
      const as = (req: ReturnType<typeof env.t.request.get>) => req.set('Authorization', `Bearer ${viewer}`);
      assert.equal((await as(env.t.request.get('/workflows/retention'))).status, 200);
      assert.equal((await as(env.t.request.get(`/workflows/definitions/${wf}/retention`))).status, 200);
      assertDialect('problem', await as(env.t.request.put('/workflows/retention')).send({ retentionDays: 5 }), 403);
      assertDialect('problem', await as(env.t.request.put(`/workflows/definitions/${wf}/retention`)).send({ retentionDays: 5 }), 403);
      assertDialect('problem', await as(env.t.request.delete(`/workflows/definitions/${wf}/retention`)), 403);
      assertDialect('problem', await org.auth(env.t.request.get('/workflows/definitions/wf_nope/retention')), 404);
    });
  });

  describe("Temporal's retention", () => {
    it("says so instead of linking to Temporal once the execution ended longer ago than Temporal's retention", async () => {
      const days = env.deps.config.temporalRetentionDays;
      assert.ok(days > 0);
      const old = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: days + 11 });
      const fresh = await seed(env.db, org.id, { status: 'completed', endedDaysAgo: 1 });
      const running = await seed(env.db, org.id, { status: 'running' });

      const gone = await org.auth(env.t.request.get(`/workflows/executions/${old}`));
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.equal(gone.body.temporal.uiUrl, undefined);
      assert.equal(gone.body.temporal.historyAvailable, false);
      assert.equal(
        gone.body.temporal.reason,
        `Temporal keeps a run's history for ${days} days after it closes; this execution ended ${days + 11} days ago.`,
      );
      assert.equal(gone.body.temporal.workflowId, old);

      for (const id of [fresh, running]) {
        const body = (await org.auth(env.t.request.get(`/workflows/executions/${id}`))).body;
        assert.ok(String(body.temporal.uiUrl).startsWith(`${TEMPORAL_UI}/namespaces/default/workflows/${id}`), JSON.stringify(body));
        assert.equal(body.temporal.historyAvailable, undefined);
      }
      const listed = await org.auth(env.t.request.get('/workflows/executions'));
      const row = (listed.body.data as Array<{ id: string; temporal: Record<string, unknown> }>).find((e) => e.id === old);
      assert.equal(row?.temporal.historyAvailable, false);
    });

    it('sets the namespace retention at start-up, as the service does, and leaves it alone with 0', async () => {
      const service = env.temporal.connection.workflowService;
      const namespace = env.temporal.client.options.namespace;
      const log = captureLogger('info');
      const retentionDays = async () =>
        optionalTsToMs((await service.describeNamespace({ namespace })).config?.workflowExecutionRetentionTtl)! / DAY_MS;
      const before = await retentionDays();
      try {
        assert.equal(await applyNamespaceRetention(service, namespace, 7, log.logger), 7);
        assert.equal(await retentionDays(), 7);
        assert.equal(await applyNamespaceRetention(service, namespace, 0, log.logger), 7, '0 reads what the namespace keeps');
        assert.equal(await retentionDays(), 7);
      } finally {
        await applyNamespaceRetention(service, namespace, before, log.logger);
      }
    });
  });
});
