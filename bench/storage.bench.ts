/**
 * Issue 28's storage figure: bytes in PostgreSQL per execution of a 10-step workflow, by
 * table (storage-per-execution.ts), on the real Temporal CLI dev server started as
 * `npm start` starts it. Target: what an execution leaves for good (every table but
 * light_step_results, whose rows the reconciler deletes after a day) at most half of the
 * 18.4 KB measured before issue 28, heap, TOAST and indexes together. Before issue 28 this
 * bench measured 16,589 bytes kept (17,408 with the light step results); see
 * docs/benchmarks.md. Without a real Temporal CLI the bench says so and skips.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { closeTestDataSource } from '../test/support/database';
import { startBenchDevServer } from './dev-server';
import type { BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';
import { measureStoragePerExecution } from './storage-per-execution';

const NAME = 'bytes in PostgreSQL per execution of a 10-step workflow (by table)';
/** Issue 28: half of the 18.4 KB measured before it. */
const TARGET_BYTES = 18.4 * 1024 * 0.5;
/** Rows the reconciler deletes a day after they were written (startup/execution-reconciler.ts): not kept. */
const TRANSIENT = 'light_step_results';

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const server = await startBenchDevServer('storage');
  if (!server) return { name: NAME, figures: { skipped: 'no real Temporal CLI found (run scripts/install-temporal-cli)' } };
  const { temporal } = server;
  try {
    const env = await TestWorkflowEnvironment.createFromExistingServer({ address: temporal.address, namespace: temporal.namespace });
    const measured = await measureStoragePerExecution({ temporal: env, runs: sized(options, 100, 5) });
    const tables = Object.keys(measured.totalBytes);
    const sum = (bytes: Record<string, number>, which: string[]) => which.reduce((total, table) => total + bytes[table], 0);
    const kept = tables.filter((table) => table !== TRANSIENT);
    const total = sum(measured.totalBytes, kept);
    return {
      name: NAME,
      figures: {
        executions: measured.runs,
        'kept bytes (heap, TOAST, indexes)': total,
        'kept bytes (rows only)': sum(measured.rowBytes, kept),
        [`with ${TRANSIENT} (heap, TOAST, indexes)`]: sum(measured.totalBytes, tables),
      },
      table: {
        columns: ['heap+TOAST+indexes', 'rows'],
        rows: tables.map((table) => [table, [measured.totalBytes[table], measured.rowBytes[table]]]),
      },
      targets: [{ label: `kept: heap, TOAST and indexes <= ${Math.round(TARGET_BYTES)} bytes per execution`, met: total <= TARGET_BYTES }],
    };
  } finally {
    await server.stop();
    await closeTestDataSource();
  }
}
