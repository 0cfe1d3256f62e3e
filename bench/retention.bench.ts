/**
 * The retention sweep at scale, in embedded PostgreSQL: 10,000 expired ended
 * executions with 5 steps, 20 log lines and 10 events each (360,000 rows),
 * beside 10,000 five-day-old ones the default keeps, 50,000 old ones a 10-year
 * workflow override keeps (the rows the default's scan must skip), and 100
 * two-day-old ones of another organization that keeps 1 day (whose scan must
 * not walk the others' rows). Figures: rows removed per
 * second by one sweep (batches of 500), and the p99 of a point read of an
 * execution (what the API does on every GET) while the sweep runs, against
 * the same read with no sweep; and a sweep with nothing to remove (the scan
 * past the rows the override keeps, once per sweep). Targets: everything
 * expired removed, nothing kept removed, reads during the sweep within 2x of idle at p50.
 */
import { randomInt } from 'node:crypto';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { ExecutionRetentionRepository } from '../db/repositories/execution-retention-repository';
import { RetentionSweeper } from '../executions';
import { closeTestDataSource, testDataSource } from '../test/support/database';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const BATCH = 500;
const count = (n: number) => n.toLocaleString('en');

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const expired = sized(options, 10_000, 600);
  const recent = sized(options, 10_000, 600);
  const keptByOverride = sized(options, 50_000, 1_000);
  const db = await testDataSource();
  // Organization ids are numeric (grants key them as bigint): two fresh ones far from the tests' range.
  const org = String(2_000_000_000 + randomInt(1_000_000) * 2);
  const shortOrg = String(Number(org) + 1);
  try {
    const loadStarted = Date.now();
    const insert = (count: number, prefix: string, workflowId: string, endedAgo: string) =>
      db.query(
        `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace, completed_at)
         SELECT $1 || g, $2, $3, 1, 'completed', '{}'::jsonb, 'default', now() - $4::interval - g * interval '1 second'
         FROM generate_series(1, ${count}) AS g`,
        [prefix, org, workflowId, endedAgo],
      );
    await insert(keptByOverride, 'exec_bench_long_', 'wf_long', '400 days');
    await insert(expired, 'exec_bench_old_', 'wf_bench', '60 days');
    await insert(recent, 'exec_bench_new_', 'wf_bench', '5 days');
    await new ExecutionRetentionRepository(db.manager).put(org, 'wf_long', 3650, null);
    // Another organization keeps 1 day: its scan must not walk the 10,000 rows above that the default keeps.
    await db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace, completed_at)
       SELECT 'exec_bench_short_' || g, $1, 'wf_short', 1, 'completed', '{}'::jsonb, 'default', now() - interval '2 days'
       FROM generate_series(1, 100) AS g`,
      [shortOrg],
    );
    await new ExecutionRetentionRepository(db.manager).put(shortOrg, '', 1, null);
    await db.query(
      `INSERT INTO execution_steps (execution_id, step_id, run, status, record)
       SELECT e.id, 's' || s, 1, 'completed', '{}'::jsonb FROM executions e, generate_series(1, 5) s
       WHERE e.organization_id = $1 AND e.workflow_id = 'wf_bench'`,
      [org],
    );
    await db.query(
      `INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, logged_at)
       SELECT e.id, l, 's1', l, 'info', 'log line ' || l, now() FROM executions e, generate_series(0, 19) l
       WHERE e.organization_id = $1 AND e.workflow_id = 'wf_bench'`,
      [org],
    );
    await db.query(
      `INSERT INTO execution_events (execution_id, seq, type, data)
       SELECT e.id, v, 'step.completed', '{}'::jsonb FROM executions e, generate_series(0, 9) v
       WHERE e.organization_id = $1 AND e.workflow_id = 'wf_bench'`,
      [org],
    );
    await db.query('ANALYZE executions; ANALYZE execution_steps; ANALYZE execution_logs; ANALYZE execution_events');
    const loadSeconds = (Date.now() - loadStarted) / 1000;

    const executions = new ExecutionRepository(db.manager);
    // The statement an API read of an execution sends (with the caller's grants beside the row).
    const caller = { id: '1', organizationId: org, type: 'person' as const };
    const reads = async (until: () => boolean, minimum: number) => {
      const samples: number[] = [];
      while (samples.length < minimum || !until()) {
        const id = `exec_bench_new_${1 + Math.floor(Math.random() * recent)}`;
        const started = process.hrtime.bigint();
        await executions.findWithWorkflowNrnAndGrants(caller, id);
        samples.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      return samples;
    };
    const idle = await reads(() => true, sized(options, 500, 20));

    const sweeper = new RetentionSweeper({ dataSource: db, defaultDays: 30, batchSize: BATCH });
    let done = false;
    const sweepStarted = process.hrtime.bigint();
    const sweeping = sweeper.sweepOnce().finally(() => (done = true));
    const during = await reads(() => done, sized(options, 100, 5));
    const counts = await sweeping;
    const sweepSeconds = Number(process.hrtime.bigint() - sweepStarted) / 1e9;
    const rows = counts.executions + counts.steps + counts.logs + counts.events + counts.waits + counts.signalDeliveries;

    const [left] = await db.query<Array<{ expired: number; recent: number; long: number; short: number }>>(
      `SELECT count(*) FILTER (WHERE id LIKE 'exec_bench_old_%')::int AS expired,
              count(*) FILTER (WHERE id LIKE 'exec_bench_new_%')::int AS recent,
              count(*) FILTER (WHERE id LIKE 'exec_bench_long_%')::int AS long,
              count(*) FILTER (WHERE id LIKE 'exec_bench_short_%')::int AS short
       FROM executions WHERE organization_id IN ($1, $1 || '-short')`,
      [org],
    );
    // One more sweep with nothing to remove: the cost of scanning past the rows the override keeps.
    const emptyStarted = process.hrtime.bigint();
    await sweeper.sweepOnce();
    const emptyMs = Number(process.hrtime.bigint() - emptyStarted) / 1e6;

    const p99During = percentile(during, 99);
    return {
      name: `retention sweep: ${count(expired + 100)} expired executions (${count(expired * 36 + 100)} rows) beside ${count(recent + keptByOverride)} kept, settings of 1 day and 10 years (embedded PostgreSQL)`,
      figures: {
        'rows loaded (s)': round(loadSeconds, 1),
        'sweep (s)': round(sweepSeconds, 2),
        batches: counts.batches,
        'rows removed': rows,
        'rows removed / s': Math.round(rows / sweepSeconds),
        'executions removed / s': Math.round(counts.executions / sweepSeconds),
        'p50 / p99 point read, idle (ms)': `${round(percentile(idle, 50), 2)} / ${round(percentile(idle, 99), 2)}`,
        'p50 / p99 point read, during the sweep (ms)': `${round(percentile(during, 50), 2)} / ${round(p99During, 2)}`,
        'sweep with nothing to remove (ms)': round(emptyMs, 1),
      },
      targets: [
        { label: 'every expired execution removed', met: left.expired === 0 && left.short === 0 },
        { label: 'no recent or overridden execution removed', met: left.recent === recent && left.long === keptByOverride },
        { label: 'point reads during the sweep within 2x of idle at p50', met: percentile(during, 50) < 2 * percentile(idle, 50) },
      ],
    };
  } finally {
    await db.query(`DELETE FROM executions WHERE organization_id IN ($1, $2)`, [org, shortOrg]);
    await db.query(`DELETE FROM execution_retention WHERE organization_id IN ($1, $2)`, [org, shortOrg]);
    await closeTestDataSource();
  }
}
