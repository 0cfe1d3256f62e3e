/**
 * The scale bench's data set: synthetic executions, step records and logs inserted
 * set-based (`INSERT … SELECT … FROM generate_series`), in chunks so a load of
 * millions of rows reports its progress and no transaction grows without bound.
 *
 * - One target organization holds 80% of the executions, four others the rest, so
 *   the target's list reads an index among other organizations' rows.
 * - Eight workflows in the target organization, skewed (the busiest holds about a
 *   third of its executions, the quietest 3%), revisions 1-3.
 * - Status mix of a platform that ran for a year: 88% completed, 8% failed, 3%
 *   cancelled, 1% terminated; only the newest 2,000 executions still run or wait.
 * - Per execution `stepsPer` step records (one run each) and `logsPer` log lines,
 *   numbered densely as the workflow writes them; `eventsPer` events (default none).
 * - One big execution (`BIG_EXECUTION`) with `bigLogs` log lines, for deep log windows.
 *
 * The parameters are recorded in the big execution's inputs: a data set already
 * loaded with the same parameters is reused (`loadedMatches`).
 */
import type { DataSource } from 'typeorm';

export const TARGET_ORG = '990100';
export const OTHER_ORGS = ['990101', '990102', '990103', '990104'];
export const WORKFLOWS = 8;
export const BIG_EXECUTION = 'exec_scale_big_0000000000000000';
const CHUNK = 50_000;

export interface ScaleDataset {
  executions: number;
  stepsPer: number;
  logsPer: number;
  eventsPer: number;
  bigLogs: number;
}

export const workflowIdOf = (organizationId: string, k: number): string => `wf_scale_${organizationId}_${k}`;

/** True when the database already holds this data set (the big execution, inserted last, records its parameters). */
export async function loadedMatches(db: DataSource, dataset: ScaleDataset): Promise<boolean> {
  const [row] = await db.query<
    Array<{
      dataset: ScaleDataset | null;
    }>
  >(`SELECT inputs->'dataset' AS dataset FROM executions WHERE id = $1`, [BIG_EXECUTION]);
  if (!row?.dataset) return false;
  const recorded = row.dataset;
  if ((Object.keys(dataset) as Array<keyof ScaleDataset>).some((key) => recorded[key] !== dataset[key])) return false;
  const [counted] = await db.query<Array<{ n: number }>>(
    `SELECT count(*)::int AS n FROM executions WHERE organization_id = ANY($1::text[])`,
    [[TARGET_ORG, ...OTHER_ORGS]],
  );
  return counted.n === dataset.executions + 1;
}

/** Deletes the bench organizations' executions (cascading to their rows): `truncate` when the database is the bench's own. */
export async function clearDataset(db: DataSource, truncate: boolean): Promise<void> {
  if (truncate) await db.query('TRUNCATE executions CASCADE');
  else await db.query(`DELETE FROM executions WHERE organization_id = ANY($1::text[])`, [[TARGET_ORG, ...OTHER_ORGS]]);
}

/** Loads the data set chunk by chunk; `progress` hears each chunk. Answers the seconds it took. */
export async function loadDataset(db: DataSource, dataset: ScaleDataset, progress: (line: string) => void): Promise<number> {
  const started = Date.now();
  const n = dataset.executions;
  // Rows of execution g (0 = oldest): organization, workflow, status and times are functions of g.
  const executionRows = `
    SELECT g, 'exec_' || md5('scale:' || g) AS id,
      CASE WHEN g % 20 < 16 THEN '${TARGET_ORG}' ELSE (${OTHER_ORGS[0]} + g % 20 - 16)::text END AS org,
      floor(${WORKFLOWS} * power(((g * 7919) % 1000) / 1000.0, 2))::int AS k,
      CASE WHEN g >= ${n - 2000} AND (g * 104729) % 1000 < 500 THEN 'running'
           WHEN g >= ${n - 2000} AND (g * 104729) % 1000 < 600 THEN 'waiting'
           WHEN (g * 104729) % 1000 < 880 THEN 'completed'
           WHEN (g * 104729) % 1000 < 960 THEN 'failed'
           WHEN (g * 104729) % 1000 < 990 THEN 'cancelled'
           ELSE 'terminated' END AS status,
      now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days' AS created_at
    FROM generate_series($1::bigint, $2::bigint) AS g`;
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK) - 1;
    await db.transaction(async (tx) => {
      await tx.query(`SET LOCAL synchronous_commit = off`);
      // Rows consistent by construction: no per-row foreign-key trigger (most of a naive load's time).
      await tx.query(`SET LOCAL session_replication_role = replica`);
      await tx.query(
        `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, status, inputs, outputs, error, trigger,
           temporal_run_id, temporal_namespace, variables, created_by, created_at, completed_at, updated_at, failure_dispatched_at)
         SELECT id, org, 'wf_scale_' || org || '_' || k, 'scale-' || k, 1 + g % 3, status,
           jsonb_build_object('orderId', 'ord-' || g, 'amount', g % 997, 'currency', 'EUR'),
           CASE WHEN status = 'completed' THEN jsonb_build_object('approved', g % 7 <> 0, 'reference', md5(id)) END,
           CASE WHEN status = 'failed' THEN jsonb_build_object('type', 'STEP_FAILED', 'message', 'step4 answered HTTP 502') END,
           '{"source": "manual", "payload": {}}'::jsonb, md5('run:' || g), 'default', jsonb_build_object('attempts', g % 3),
           '900100001', created_at,
           CASE WHEN status NOT IN ('running', 'waiting') THEN created_at + (g % 600) * interval '1 second' END,
           created_at + (g % 600) * interval '1 second',
           CASE WHEN status = 'failed' THEN created_at + (g % 600) * interval '1 second' END
         FROM (${executionRows}) e`,
        [from, to],
      );
      if (dataset.stepsPer > 0)
        await tx.query(
          `INSERT INTO execution_steps (execution_id, step_id, run, status, record, started_at, completed_at)
           SELECT 'exec_' || md5('scale:' || g), 'step' || s, 1, 'completed',
             jsonb_build_object('stepId', 'step' || s, 'status', 'completed', 'run', 1, 'attempt', 1,
               'outputs', jsonb_build_object('statusCode', 200, 'items', (g + s) % 97)),
             t + s * interval '2 seconds', t + s * interval '2 seconds' + interval '150 milliseconds'
           FROM generate_series($1::bigint, $2::bigint) AS g,
                LATERAL (SELECT now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days' AS t) times,
                generate_series(0, ${dataset.stepsPer - 1}) AS s`,
          [from, to],
        );
      if (dataset.logsPer > 0)
        await tx.query(
          `INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, metadata, logged_at)
           SELECT 'exec_' || md5('scale:' || g), l, 'step' || (l % ${Math.max(1, dataset.stepsPer)}), l / ${Math.max(1, dataset.stepsPer)},
             CASE WHEN l % 10 = 9 THEN 'warn' ELSE 'info' END,
             'step' || (l % ${Math.max(1, dataset.stepsPer)}) || ' processed item ' || g || ' in ' || (g + l) % 97 || ' ms',
             CASE WHEN l % 5 = 0 THEN jsonb_build_object('attempt', 1) END,
             now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days' + l * interval '1 second'
           FROM generate_series($1::bigint, $2::bigint) AS g, generate_series(0, ${dataset.logsPer - 1}) AS l`,
          [from, to],
        );
      if (dataset.eventsPer > 0)
        await tx.query(
          `INSERT INTO execution_events (execution_id, seq, type, data, created_at)
           SELECT 'exec_' || md5('scale:' || g), v, 'step.completed', jsonb_build_object('stepId', 'step' || v, 'status', 'completed'),
             now() - interval '365 days' + (g::float8 / ${n}) * interval '365 days' + v * interval '1 second'
           FROM generate_series($1::bigint, $2::bigint) AS g, generate_series(0, ${dataset.eventsPer - 1}) AS v`,
          [from, to],
        );
    });
    progress(`loaded executions ${from}..${to} (${((Date.now() - started) / 1000).toFixed(0)} s)`);
  }
  // The big execution last: its inputs record the data set, so a load cut short is never taken as complete.
  await db.transaction(async (tx) => {
    await tx.query(`SET LOCAL session_replication_role = replica`);
    await tx.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, status, inputs, trigger, temporal_run_id,
         temporal_namespace, created_at, completed_at)
       VALUES ($1, $2, $3, 'scale-0', 1, 'completed', jsonb_build_object('dataset', $4::jsonb), '{"source": "manual", "payload": {}}'::jsonb,
         'run-big', 'default', now() - interval '180 days', now() - interval '179 days')`,
      [BIG_EXECUTION, TARGET_ORG, workflowIdOf(TARGET_ORG, 0), JSON.stringify(dataset)],
    );
    await tx.query(
      `INSERT INTO execution_logs (execution_id, seq, step_id, step_seq, level, message, metadata, logged_at)
       SELECT $1, l, 'step' || (l % 10), l / 10, 'info', 'big run line ' || l, NULL, now() - interval '180 days' + l * interval '1 millisecond'
       FROM generate_series(0, $2::int - 1) AS l`,
      [BIG_EXECUTION, dataset.bigLogs],
    );
  });
  progress('VACUUM ANALYZE');
  for (const table of ['executions', 'execution_steps', 'execution_logs', 'execution_events']) await db.query(`VACUUM ANALYZE ${table}`);
  return (Date.now() - started) / 1000;
}
