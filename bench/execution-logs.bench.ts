/**
 * Log windows at scale: one execution with 1,000,000 log rows (spread over 10
 * steps) in embedded PostgreSQL; p50 of a 200-entry window at the newest end
 * (shallow) and near the oldest end (deep cursor), with and without a step
 * filter. Targets: every p50 under 5 ms, deep within 1.5x of shallow.
 */
import { randomUUID } from 'node:crypto';
import { ExecutionLogRepository } from '../db/repositories/execution-log-repository';
import { closeTestDataSource, testDataSource } from '../test/support/database';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';

const STEPS = 10;

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const rows = sized(options, 1_000_000, 20_000);
  const samples = sized(options, 300, 10);
  const db = await testDataSource();
  const executionId = `exec_bench_${randomUUID().replace(/-/g, '')}`;
  try {
    await db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace)
       VALUES ($1, 'bench', 'wf_bench', 1, 'completed', '{}'::jsonb, 'default')`,
      [executionId],
    );
    const loadStarted = Date.now();
    // Dense numbering, as the workflow writes it: seq over the execution, step_seq within each step.
    await db.query(
      `INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, metadata, logged_at)
       SELECT $1, g, 'step' || (g % ${STEPS}), g / ${STEPS}, 'info', 'log line number ' || g, NULL, now()
       FROM generate_series(0, ${rows - 1}) AS g`,
      [executionId],
    );
    await db.query('ANALYZE execution_logs');
    const loadSeconds = (Date.now() - loadStarted) / 1000;

    const logs = new ExecutionLogRepository(db.manager);
    const measure = async (window: { cursor?: number; stepId?: string }) => {
      const times: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = process.hrtime.bigint();
        const result = await logs.window(executionId, { limit: 200, ...window });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (result.rows.length !== 200) throw new Error(`window returned ${result.rows.length} rows`);
      }
      return percentile(times, 50);
    };
    const shallow = await measure({});
    const deep = await measure({ cursor: 1000 });
    const stepShallow = await measure({ stepId: 'step3' });
    const stepDeep = await measure({ stepId: 'step3', cursor: 1000 });

    return {
      name: `execution logs: 200-entry windows over ${rows.toLocaleString('en')} rows (embedded PostgreSQL)`,
      figures: {
        'rows loaded (s)': round(loadSeconds, 1),
        'p50 newest window ms': round(shallow, 3),
        'p50 deep window (cursor 1000) ms': round(deep, 3),
        'p50 newest window of one step ms': round(stepShallow, 3),
        'p50 deep window of one step ms': round(stepDeep, 3),
      },
      targets: [
        { label: 'newest window p50 < 5 ms', met: shallow < 5 },
        { label: 'deep window p50 < 5 ms', met: deep < 5 },
        { label: 'deep within 1.5x of newest', met: deep <= shallow * 1.5 },
        { label: 'step windows p50 < 5 ms and within 1.5x', met: stepShallow < 5 && stepDeep < 5 && stepDeep <= stepShallow * 1.5 },
      ],
    };
  } finally {
    await db.query('DELETE FROM executions WHERE id = $1', [executionId]);
    await closeTestDataSource();
  }
}
