/**
 * The execution workflow on every Temporal this machine can start, side by side: the
 * real Temporal CLI dev server (when a binary is found, see startup/temporal-cli.ts) and
 * the in-memory stand-in, each with one worker:
 * - a 40-step graph of pure steps (deciders, set-variable, log) against the same graph
 *   of activity steps (http-request served by an activity that answers at once): time
 *   per step, target pure <= a tenth of activity;
 * - executions per second for a 10-step graph of pure steps (concurrency 10);
 * - signal delivery round trip (update call until the waiting step resumed), p50;
 * - bare Temporal: one-activity workflows per second (no engine, concurrency 20).
 * Persistence activities are in-memory here; the point is the engine's cost.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { ExecutionActivities } from '../activities/create-execution-activities';
import { findRealTemporalCli, type TemporalServerChoice } from '../startup/temporal';
import { workflowBundle } from '../worker/worker';
import { chain, executionInput, trigger } from '../test/support/definitions';
import { createTestTemporalEnv } from '../test/support/temporal';
import type { ExecutionInput } from '../workflows/engine';
import { deliverSignalUpdate, stateQuery } from '../workflows/messages';
import { percentile, round, type BenchReport } from './report';
import { FULL_SIZE, sized, type BenchOptions } from './size';
import { pureStep } from './step-shapes';

const activities: ExecutionActivities = {
  callPlugin: () => Promise.resolve({ status: 'success', outputs: { statusCode: 200 } }),
  callLightStep: () => Promise.resolve({ result: { status: 'success', outputs: { statusCode: 200 } }, batchWritten: true }),
  notifyWait: () => Promise.resolve({ sent: false }),
  resolveVars: () => Promise.resolve({}),
  recordEvents: () => Promise.resolve(),
  finishExecution: () => Promise.resolve(),
  prepareChild: () => Promise.reject(new Error('unused')),
  prepareScheduledExecution: () => Promise.reject(new Error('unused')),
};

/** start ──▶ s1 ──▶ s2 ──▶ … ──▶ s<count>. */
function chainOf(count: number, step: (i: number) => Record<string, unknown>): Record<string, unknown> {
  const steps = chain(trigger(), ...Array.from({ length: count }, (_, i) => ({ id: `s${i + 1}`, ...step(i + 1) })));
  return { name: 'bench', steps, variables: { n: { initialValue: 0 } } };
}

const activityStep = (): Record<string, unknown> => ({
  type: 'module',
  pluginType: 'http-request',
  config: { url: 'https://example.test/' },
});

const input = (doc: Record<string, unknown>): ExecutionInput => executionInput(doc, { organizationId: 'bench', workflowId: 'wf_bench' });

/** Runs `total` jobs with at most `concurrency` at a time; returns jobs per second. */
async function perSecond(total: number, concurrency: number, job: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) await job(next++);
    }),
  );
  return total / (Number(process.hrtime.bigint() - started) / 1e9);
}

interface ServerFigures {
  pureMs: number;
  activityMs: number;
  tenStepPerSecond: number;
  signalP50: number;
  bareOneActivityPerSecond: number;
}

async function measureEngine(
  env: TestWorkflowEnvironment,
  options: BenchOptions,
): Promise<Omit<ServerFigures, 'bareOneActivityPerSecond'>> {
  const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities,
  });
  const client = env.client;
  const execute = async (doc: Record<string, unknown>) => {
    const execution = input(doc);
    const handle = await client.workflow.start('runWorkflowExecution', { taskQueue, workflowId: execution.executionId, args: [execution] });
    await handle.result();
  };
  const timePerRun = async (doc: Record<string, unknown>, runs: number) => {
    await execute(doc); // warm-up
    const started = process.hrtime.bigint();
    for (let i = 0; i < runs; i++) await execute(doc);
    return Number(process.hrtime.bigint() - started) / 1e6 / runs;
  };
  return worker.runUntil(async () => {
    const pureMs = await timePerRun(chainOf(40, pureStep), sized(options, 10, 2));
    const activityMs = await timePerRun(chainOf(40, activityStep), sized(options, 5, 1));
    const ten = chainOf(10, pureStep);
    const tenStepPerSecond = await perSecond(sized(options, 100, 10), 10, () => execute(ten));

    const roundTrips: number[] = [];
    const waiter = chainOf(1, () => ({ type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' } }));
    for (let i = 0; i < sized(options, 20, 2); i++) {
      const execution = input(waiter);
      const handle = await client.workflow.start('runWorkflowExecution', {
        taskQueue,
        workflowId: execution.executionId,
        args: [execution],
      });
      while ((await handle.query(stateQuery)).pendingWaits.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const t0 = process.hrtime.bigint();
      await handle.executeUpdate(deliverSignalUpdate, { args: [{ name: 'go', payload: { i }, signalId: `sig_${i}` }] });
      roundTrips.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await handle.result();
    }
    return { pureMs, activityMs, tenStepPerSecond, signalP50: percentile(roundTrips, 50) };
  });
}

/** Bare Temporal, no engine: workflows of one activity that echoes, concurrency 20. */
async function measureBare(env: TestWorkflowEnvironment, options: BenchOptions): Promise<number> {
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, '../test/temporal-conformance/workflows.ts'), logger });
  const taskQueue = `bare-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: { echo: (value: string) => Promise.resolve(`echo:${value}`) },
  });
  const one = (i: number) => env.client.workflow.execute('oneActivity', { taskQueue, workflowId: `${taskQueue}-${i}`, args: [String(i)] });
  return worker.runUntil(async () => {
    await perSecond(20, 20, one); // warm-up
    return perSecond(sized(options, 300, 20), 20, one);
  });
}

async function measure(server: TemporalServerChoice, options: BenchOptions): Promise<ServerFigures> {
  const env = await createTestTemporalEnv('local', { server });
  try {
    const engine = await measureEngine(env, options);
    return { ...engine, bareOneActivityPerSecond: await measureBare(env, options) };
  } finally {
    await env.teardown();
  }
}

export async function run(options: BenchOptions = FULL_SIZE): Promise<BenchReport> {
  const servers: Array<'cli' | 'stand-in'> = (await findRealTemporalCli()) ? ['cli', 'stand-in'] : ['stand-in'];
  const results: ServerFigures[] = [];
  for (const server of servers) results.push(await measure(server, options));
  const column = (pick: (figures: ServerFigures) => number, digits: number) => results.map((figures) => round(pick(figures), digits));
  return {
    name: 'execution engine on each Temporal (one worker, in-memory persistence)',
    figures: {},
    table: {
      columns: servers.map((server) => (server === 'cli' ? 'real dev server (CLI)' : 'stand-in')),
      rows: [
        ['40 pure steps: ms per execution', column((f) => f.pureMs, 1)],
        ['40 activity steps: ms per execution', column((f) => f.activityMs, 1)],
        ['ms per pure step', column((f) => f.pureMs / 40, 3)],
        ['ms per activity step', column((f) => f.activityMs / 40, 3)],
        ['pure / activity step time', column((f) => f.pureMs / f.activityMs, 3)],
        ['10-step executions/s (concurrency 10)', column((f) => f.tenStepPerSecond, 1)],
        ['signal round trip p50 ms', column((f) => f.signalP50, 2)],
        ['bare Temporal: one-activity workflows/s (c=20)', column((f) => f.bareOneActivityPerSecond, 1)],
      ],
    },
    targets: servers.map((server, i) => ({
      label: `${server}: time per pure step <= 1/10 of the time per activity step`,
      met: results[i].pureMs <= results[i].activityMs / 10,
    })),
  };
}
