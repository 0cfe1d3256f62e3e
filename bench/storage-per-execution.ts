/**
 * Bytes in PostgreSQL per execution of a representative 10-step workflow, by table
 * (issue 28): the workflow below runs `runs` times through the real API and a real
 * worker on the Temporal server the caller gives (the bench starts the CLI dev server
 * as `npm start` does), then each table is measured two ways:
 * - `rowBytes`: `sum(pg_column_size(t.*))` over the rows of those executions / runs:
 *   the rows' heap bytes (compressed or TOASTed values as stored), no index, no page
 *   overhead, no dead rows;
 * - `totalBytes`: the growth of `pg_total_relation_size` (heap, TOAST and indexes, after
 *   a plain VACUUM, as autovacuum leaves a table) across the runs / runs: what the disk
 *   holds, page and index overhead included.
 * The database must hold no other writers while it measures (the benches' own embedded one).
 *
 *   start ─▶ begin(log) ─▶ fetch(http-request, ~2 KB JSON) ─▶ got(log) ─▶ keep(set-variable)
 *     ─▶ compute(code-exec) ─▶ check(conditional) ─▶ note(log) ─▶ pass(no-op) ─▶ done(log)
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startExecEnv, type ExecEnv } from '../test/executions-api/support';
import { newOrganizationId } from '../test/support/database';
import { grantAdmin } from '../test/support/grants';
import { chain, step, trigger } from '../test/support/definitions';
import { publish } from './end-to-end-harness';

/** The tables an execution writes to (light_step_results rows are swept once Temporal has the call: transient). */
export const EXECUTION_TABLES = [
  'executions',
  'execution_steps',
  'execution_step_payloads',
  'execution_events',
  'execution_logs',
  'light_step_results',
] as const;

export interface StoragePerExecution {
  runs: number;
  /** Heap bytes of the rows per execution, by table (`sum(pg_column_size(t.*))`). */
  rowBytes: Record<string, number>;
  /** Growth of heap + TOAST + indexes per execution, by table (`pg_total_relation_size`, after VACUUM). */
  totalBytes: Record<string, number>;
}

export interface StorageOptions {
  temporal: TestWorkflowEnvironment;
  /** Executions to run (default 100: a table grows by 8 KB pages, so fewer blur the figures). */
  runs?: number;
}

/** A JSON body of about 2 KB: what a typical API answers. */
export function sampleBody(): Record<string, unknown> {
  return {
    items: Array.from({ length: 12 }, (_, i) => ({
      id: `item-${i}`,
      name: `Service number ${i}`,
      status: i % 3 === 0 ? 'active' : 'inactive',
      tags: ['alpha', 'beta'],
      updatedAt: '2026-11-01T10:00:00.000Z',
      owner: { team: 'platform', email: 'team@example.com' },
    })),
    total: 12,
  };
}

/** The measured workflow, published as clients send it. */
export function storageWorkflow(url: string): Record<string, unknown> {
  const steps = chain(
    trigger(),
    step('begin', 'log', { message: 'starting' }),
    step('fetch', 'http-request', { url, timeout: '5s' }),
    step('got', 'log', { message: 'got ${{ steps.fetch.outputs.statusCode }}' }),
    step('keep', 'set-variable', { path: 'total', value: '${{ steps.fetch.outputs.body.total }}' }),
    step('compute', 'code-exec', { code: 'return { count: inputs.body.items.length, first: inputs.body.items[0].id };' }),
    step('check', 'conditional', { expression: 'variables.total > 0', truePort: 'default' }, { joinStrategy: 'any' }),
    step('note', 'log', { message: 'counted ${{ steps.compute.outputs.count }}' }),
    step('pass', 'no-op'),
    step('done', 'log', { message: 'done' }),
  );
  return { name: 'storage', steps, variables: { total: { initialValue: 0 } } };
}

export async function measureStoragePerExecution(options: StorageOptions): Promise<StoragePerExecution> {
  const runs = options.runs ?? 100;
  const body = JSON.stringify(sampleBody());
  const answering = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(body);
  });
  await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(answering.address() as AddressInfo).port}/services`;
  let x: ExecEnv | undefined;
  const org = newOrganizationId();
  try {
    x = await startExecEnv({ temporal: options.temporal });
    const token = await x.t.token({ organizationId: org, userId: await grantAdmin(x.db, org) });
    const auth = (req: ReturnType<ExecEnv['t']['request']['get']>) => req.set('Authorization', `Bearer ${token}`);
    const workflowId = await publish(x, token, storageWorkflow(url));
    const runOnce = async (): Promise<void> => {
      const started = await auth(x!.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({});
      if (started.status !== 202) throw new Error(`execute: ${started.status} ${JSON.stringify(started.body)}`);
      const id = started.body.executionId as string;
      for (let i = 0; i < 600; i++) {
        const res = await auth(x!.t.request.get(`/workflows/executions/${id}`));
        if (res.body.status === 'completed') return;
        if (res.body.status !== 'running') throw new Error(`execution ${id} ended ${res.body.status}: ${JSON.stringify(res.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      throw new Error(`execution ${id} did not complete`);
    };
    // One warm-up run (first pages of each table), not counted.
    await runOnce();
    const before = await totalSizes(x);
    const beforeIds = await executionIds(x, org);
    for (let i = 0; i < runs; i++) await runOnce();
    const after = await totalSizes(x);
    const ids = (await executionIds(x, org)).filter((id) => !beforeIds.includes(id));
    const rowBytes: Record<string, number> = {};
    const totalBytes: Record<string, number> = {};
    for (const table of Object.keys(after)) {
      totalBytes[table] = Math.round((after[table] - before[table]) / runs);
      rowBytes[table] = Math.round((await rowSum(x, table, ids)) / runs);
    }
    return { runs, rowBytes, totalBytes };
  } finally {
    if (x) {
      await x.db.query(`DELETE FROM executions WHERE organization_id = $1`, [org]);
      await x.db.query(`DELETE FROM workflows WHERE organization_id = $1`, [org]);
    }
    answering.closeAllConnections();
    await new Promise((resolve) => answering.close(resolve));
    // Stops the worker and tears the environment down (a connection to the caller's server; the server goes on).
    if (x) await x.stop();
  }
}

/** The tables of EXECUTION_TABLES this database has (a new table may not exist on an older schema). */
async function totalSizes(x: ExecEnv): Promise<Record<string, number>> {
  const present = await x.db.query<Array<{ name: string }>>(`SELECT relname AS name FROM pg_class WHERE relname = ANY($1::text[])`, [
    [...EXECUTION_TABLES],
  ]);
  const sizes: Record<string, number> = {};
  for (const table of EXECUTION_TABLES) {
    if (!present.some((row) => row.name === table)) continue;
    await x.db.query(`VACUUM ${table}`);
    const [row] = await x.db.query<Array<{ bytes: string }>>(`SELECT pg_total_relation_size($1::regclass) AS bytes`, [table]);
    sizes[table] = Number(row.bytes);
  }
  return sizes;
}

async function executionIds(x: ExecEnv, org: string): Promise<string[]> {
  const rows = await x.db.query<Array<{ id: string }>>(`SELECT id FROM executions WHERE organization_id = $1`, [org]);
  return rows.map((row) => row.id);
}

async function rowSum(x: ExecEnv, table: string, ids: string[]): Promise<number> {
  const where =
    table === 'executions'
      ? `id = ANY($1::text[])`
      : table === 'light_step_results'
        ? `workflow_run_id IN (SELECT temporal_run_id FROM executions WHERE id = ANY($1::text[]))`
        : `execution_id = ANY($1::text[])`;
  const [row] = await x.db.query<Array<{ bytes: string | null }>>(
    `SELECT sum(pg_column_size(t.*)) AS bytes FROM ${table} t WHERE ${where}`,
    [ids],
  );
  return Number(row.bytes ?? 0);
}
