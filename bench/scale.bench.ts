/**
 * Capacity at scale (`npm run bench -- scale [--executions N] [--data-dir DIR]`): the read
 * paths of the API with 1,000,000 executions, 10 step records and 20 log lines each
 * (20,000,000 log rows) and one execution of 200,000 log lines, through HTTP on a
 * loopback port (routing, token, authorization, queries, serialization).
 *
 * - Database: `DATABASE_URL` when set (only the bench organizations' rows are replaced),
 *   else its own embedded PostgreSQL kept in `<data-dir>` (default `.data/bench-scale`),
 *   so the data set is loaded once (minutes) and reused by later runs with the same size.
 * - Reads: p50/p99 at c=1 (one client) and c=8 (eight clients at once) for the list's first
 *   page, filtered by workflow, status, and both, a page 500 pages deep by cursor (and by
 *   offset, for comparison), one execution, its state, its steps, and log windows.
 *   Targets (issue #28): every read under 20 ms p99 at c=1 and 50 ms p99 at c=8.
 * - Updates: execution lifecycles written by the repositories (run id, progress, end) on the
 *   loaded table; the share of HOT updates (pg_stat_user_tables.n_tup_hot_upd) per kind.
 * - Bytes per execution of a 10-step workflow, by table, and the retention sweep's rows per
 *   second and its effect on reads: the storage and retention benches, folded in (`SECTIONS`).
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { executionRoutes } from '../api/executions';
import { loadConfig } from '../config/config';
import { createDataSource } from '../db/data-source';
import { runMigrations } from '../db/database';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded-postgres';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { createTestApp } from '../test/support/app';
import { grantAdmin } from '../test/support/grants';
import { captureLogger } from '../test/support/logger';
import { percentile, round, type BenchModule, type BenchReport } from './report';
import * as retentionBench from './retention.bench';
import * as storageBench from './storage.bench';
import { FULL_SIZE, sized, type BenchOptions } from './size';
import { BIG_EXECUTION, TARGET_ORG, clearDataset, loadDataset, loadedMatches, workflowIdOf, type ScaleDataset } from './scale-data';

const WARMUP = 20;
const DEEP_PAGES = 500;
const PAGE_LIMIT = 50;
const TARGET_C1_P99_MS = 20;
const TARGET_C8_P99_MS = 50;

/** What a section of the report is given: the loaded database, its data set and the run's size. */
export interface ScaleContext {
  db: DataSource;
  dataset: ScaleDataset;
  options: BenchOptions;
}

/** A section's part of the report: figures and targets, merged into the scale report. */
export interface ScaleSection {
  figures: Record<string, number | string>;
  targets?: Array<{ label: string; met: boolean }>;
}

/**
 * Another bench's report as a section of this one, its figures, table rows and targets prefixed
 * with `prefix`. Bytes per execution (storage.bench.ts: 100 runs of a 10-step workflow on the real
 * Temporal dev server) and the retention sweep (retention.bench.ts: its own 370,000 rows, so the
 * loaded data set stays reusable) measure on data of their own.
 */
function folded(prefix: string, bench: BenchModule): (context: ScaleContext) => Promise<ScaleSection> {
  return async ({ options }) => {
    const report = await bench.run(options);
    const figures: Record<string, number | string> = {};
    for (const [label, value] of Object.entries(report.figures)) figures[`${prefix}: ${label}`] = value;
    for (const [label, values] of report.table?.rows ?? [])
      figures[`${prefix}: ${label}`] = values.map((value, i) => `${value} ${report.table?.columns[i] ?? ''}`.trim()).join(', ');
    return { figures, targets: (report.targets ?? []).map(({ label, met }) => ({ label: `${prefix}: ${label}`, met })) };
  };
}

/** Sections run after the reads, in order. */
const SECTIONS: Array<(context: ScaleContext) => Promise<ScaleSection>> = [
  hotUpdates,
  folded('bytes per execution', storageBench),
  folded('retention sweep', retentionBench),
];

function option(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const executions = Number(option('executions') ?? sized(options, 1_000_000, 10_000));
  if (!Number.isInteger(executions) || executions < 10_000) throw new Error('--executions takes an integer of at least 10000');
  const dataset: ScaleDataset = {
    executions,
    stepsPer: 10,
    logsPer: 20,
    eventsPer: Number(option('events') ?? 0),
    bigLogs: sized(options, 200_000, 20_000),
  };
  const { db, embedded } = await openDatabase(options);
  try {
    await runMigrations(db, captureLogger('info').logger);
    let loadSeconds: number | string = 'reused';
    if (!(await loadedMatches(db, dataset))) {
      await clearDataset(db, embedded !== undefined);
      loadSeconds = round(await loadDataset(db, dataset, (line) => console.log(`  scale: ${line}`)), 0);
    }
    const reads = await measureReads(db, dataset, options);
    const figures: Record<string, number | string> = {
      executions: dataset.executions + 1,
      'step rows': dataset.executions * dataset.stepsPer,
      'log rows': dataset.executions * dataset.logsPer + dataset.bigLogs,
      'event rows': dataset.executions * dataset.eventsPer,
      'load (s)': loadSeconds,
      ...(await tableSizes(db)),
    };
    const targets = [...(reads.targets ?? [])];
    for (const section of SECTIONS) {
      const part = await section({ db, dataset, options });
      Object.assign(figures, part.figures);
      targets.push(...(part.targets ?? []));
    }
    return {
      name: `capacity: reads with ${dataset.executions.toLocaleString('en')} executions (HTTP, embedded PostgreSQL unless DATABASE_URL)`,
      figures,
      table: reads.table,
      targets,
    };
  } finally {
    await db.destroy();
    await embedded?.stop();
  }
}

/**
 * `DATABASE_URL`, else the bench's own embedded cluster in `--data-dir`, set up once as a database
 * server of this machine would be (a quarter of its memory would be 6 GB; 2 GB leaves room for the
 * rest): a buffer cache that holds the hot indexes, and fewer checkpoints while millions of rows go in.
 */
async function openDatabase(options: BenchOptions): Promise<{ db: DataSource; embedded?: EmbeddedDatabase }> {
  const configured = loadConfig().databaseUrl;
  if (configured) {
    const db = createDataSource(configured);
    await db.initialize();
    return { db };
  }
  // The smoke size keeps a cluster of its own: loading it into the full one would replace the full data set.
  const dataDir = path.resolve(option('data-dir') ?? path.join('.data', options.size === 'smoke' ? 'bench-scale-smoke' : 'bench-scale'));
  const start = async () => {
    const embedded = await startEmbeddedPostgres({ dataDir, database: 'platform_scale', logger: captureLogger('info').logger });
    const db = createDataSource(embedded.url);
    await db.initialize();
    return { db, embedded };
  };
  const first = await start();
  const [{ shared_buffers: buffers }] = await first.db.query<Array<{ shared_buffers: string }>>('SHOW shared_buffers');
  if (buffers === '2GB') return first;
  await first.db.query(`ALTER SYSTEM SET shared_buffers = '2GB'`);
  await first.db.query(`ALTER SYSTEM SET max_wal_size = '8GB'`);
  await first.db.destroy();
  await first.embedded.stop();
  return start();
}

/** The executions routes only (reads never reach Temporal), on a loopback port; every call as an admin of the target organization. */
async function measureReads(db: DataSource, dataset: ScaleDataset, options: BenchOptions): Promise<Pick<BenchReport, 'table' | 'targets'>> {
  const unreachable = { options: { namespace: 'default' } } as unknown as Client;
  const t = createTestApp({
    routes: executionRoutes({
      config: { ...loadConfig(), publicBaseUrl: 'http://api.test' },
      dataSource: db,
      temporal: unreachable,
      encryptionKey: randomBytes(32),
    }),
  });
  const userId = await grantAdmin(db, TARGET_ORG);
  const headers = { authorization: `Bearer ${await t.token({ userId, organizationId: TARGET_ORG })}` };
  const server = t.app.koa.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async <T>(url: string): Promise<T> => {
    const res = await fetch(base + url, { headers });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text) as T;
  };
  try {
    // Executions of the target organization to read one by one: spread over the whole year.
    const sample = (
      await db.query<Array<{ id: string }>>(
        `SELECT id FROM executions WHERE organization_id = $1 AND id <> $2 ORDER BY md5(id || 'pick') LIMIT 1000`,
        [TARGET_ORG, BIG_EXECUTION],
      )
    ).map((row) => row.id);
    const pick = (i: number) => sample[i % sample.length];
    const workflow = encodeURIComponent(workflowIdOf(TARGET_ORG, 3));
    // A cursor 500 pages deep, by walking there as a client would.
    const deepPages = Math.min(DEEP_PAGES, Math.floor((dataset.executions * 0.8) / PAGE_LIMIT) - 2);
    let cursor: string | undefined;
    for (let page = 0; page < deepPages; page += 1) {
      const body = await get<{ nextCursor: string | null }>(
        `/workflows/executions?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (!body.nextCursor) throw new Error(`no next cursor after page ${page + 1}`);
      cursor = body.nextCursor;
    }
    const deepCursor = encodeURIComponent(cursor!);
    const reads: Array<[string, (i: number) => string, boolean]> = [
      ['list, first page', () => `/workflows/executions?limit=${PAGE_LIMIT}`, true],
      ['list by workflow', () => `/workflows/executions?limit=${PAGE_LIMIT}&workflowId=${workflow}`, true],
      ['list by status (failed)', () => `/workflows/executions?limit=${PAGE_LIMIT}&status=failed`, true],
      ['list by status (waiting, rare)', () => `/workflows/executions?limit=${PAGE_LIMIT}&status=waiting`, true],
      ['list by workflow and status', () => `/workflows/executions?limit=${PAGE_LIMIT}&workflowId=${workflow}&status=failed`, true],
      [`list, ${deepPages} pages deep by cursor`, () => `/workflows/executions?limit=${PAGE_LIMIT}&cursor=${deepCursor}`, true],
      [`list, page ${deepPages + 1} by offset (no target)`, () => `/workflows/executions?limit=${PAGE_LIMIT}&page=${deepPages + 1}`, false],
      ['one execution', (i) => `/workflows/executions/${pick(i)}`, true],
      ['its state', (i) => `/workflows/executions/${pick(i)}/state`, true],
      ['its steps', (i) => `/workflows/executions/${pick(i)}/steps`, true],
      ['its log window', (i) => `/workflows/executions/${pick(i)}/logs`, true],
      [`log window, newest of ${dataset.bigLogs.toLocaleString('en')}`, () => `/workflows/executions/${BIG_EXECUTION}/logs`, true],
      [`log window, deep (cursor 1000)`, () => `/workflows/executions/${BIG_EXECUTION}/logs?cursor=1000`, true],
    ];
    const rows: Array<[string, Array<number | string>]> = [];
    const targets: Array<{ label: string; met: boolean }> = [];
    for (const [label, url, targeted] of reads) {
      const one = await latencies(1, sized(options, 200, 10), (i) => get(url(i)));
      const eight = await latencies(8, sized(options, 400, 16), (i) => get(url(i)));
      const [p50, p99, p50x8, p99x8] = [percentile(one, 50), percentile(one, 99), percentile(eight, 50), percentile(eight, 99)];
      rows.push([label, [round(p50), round(p99), round(p50x8), round(p99x8)]]);
      if (targeted)
        targets.push({
          label: `${label}: p99 < ${TARGET_C1_P99_MS} ms at c=1 (${round(p99, 1)}), < ${TARGET_C8_P99_MS} ms at c=8 (${round(p99x8, 1)})`,
          met: p99 < TARGET_C1_P99_MS && p99x8 < TARGET_C8_P99_MS,
        });
    }
    return { table: { columns: ['c=1 p50 ms', 'c=1 p99 ms', 'c=8 p50 ms', 'c=8 p99 ms'], rows }, targets };
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** `samples` calls (after a warm-up), `concurrency` at a time: each call's ms. */
async function latencies(concurrency: number, samples: number, call: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP; i += 1) await call(i);
  const out: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < samples) {
        const i = next++;
        const started = process.hrtime.bigint();
        await call(i);
        out.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  return out;
}

async function tableSizes(db: DataSource): Promise<Record<string, string>> {
  const rows = await db.query<Array<{ name: string; heap: string; indexes: string }>>(
    `SELECT relname AS name, pg_size_pretty(pg_table_size(oid)) AS heap, pg_size_pretty(pg_indexes_size(oid)) AS indexes
     FROM pg_class WHERE relname IN ('executions', 'execution_steps', 'execution_logs', 'execution_events') ORDER BY relname`,
  );
  return Object.fromEntries(rows.map((row) => [`${row.name} size (table / indexes)`, `${row.heap} / ${row.indexes}`]));
}

/**
 * Execution lifecycles as the service writes them, on the loaded table: insert, the Temporal run id,
 * three progress records (variables), the end. Each kind's updates and how many were HOT, counted by
 * PostgreSQL on one connection (its statistics flushed after each kind).
 */
export async function hotUpdates({ db, options }: ScaleContext): Promise<ScaleSection> {
  const runner = db.createQueryRunner();
  await runner.connect();
  const executions = new ExecutionRepository(runner.manager);
  const counters = async () => {
    await runner.query('SELECT pg_stat_force_next_flush()');
    await runner.query('SELECT 1');
    const [row] = await db.query<Array<{ updated: number; hot: number }>>(
      `SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_user_tables WHERE relname = 'executions'`,
    );
    return row;
  };
  const ids = Array.from({ length: sized(options, 1000, 20) }, () => `exec_hot_${randomBytes(16).toString('hex')}`);
  try {
    for (const id of ids)
      await executions.insertIdempotent({
        id,
        organizationId: TARGET_ORG,
        workflowId: workflowIdOf(TARGET_ORG, 1),
        workflowKey: 'scale-1',
        revision: 1,
        alias: null,
        inputs: { orderId: id, amount: 12 },
        trigger: { source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
        correlationKey: null,
        idempotencyKey: null,
        parentExecutionId: null,
        temporalNamespace: 'default',
        createdBy: '900100001',
      });
    const phases: Array<[string, (id: string) => Promise<void>]> = [
      ['run id', (id) => executions.setTemporalRunId(id, `run_${id}`)],
      [
        'progress (variables) x3',
        async (id) => {
          for (let step = 1; step <= 3; step += 1) await executions.recordProgress(id, { variables: { step, total: step * 10 } });
        },
      ],
      [
        'end (status, outputs)',
        async (id) => {
          await executions.finish(id, 'completed', { approved: true }, null);
        },
      ],
    ];
    const figures: Record<string, string> = {};
    let all = { updated: 0, hot: 0 };
    for (const [label, write] of phases) {
      const before = await counters();
      for (const id of ids) await write(id);
      const after = await counters();
      const kind = { updated: after.updated - before.updated, hot: after.hot - before.hot };
      all = { updated: all.updated + kind.updated, hot: all.hot + kind.hot };
      figures[`HOT updates: ${label}`] = `${kind.hot} of ${kind.updated}`;
    }
    figures['HOT updates: whole lifecycle'] = `${all.hot} of ${all.updated} (${round((100 * all.hot) / Math.max(1, all.updated), 1)}%)`;
    return { figures };
  } finally {
    await runner.query(`DELETE FROM executions WHERE id = ANY($1::text[])`, [ids]);
    await runner.release();
  }
}
