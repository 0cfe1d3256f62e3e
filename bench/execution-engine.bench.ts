/**
 * The execution workflow on the Temporal stand-in with one worker:
 * - a 40-step graph of pure steps (deciders, set-variable, log) against the
 *   same graph of activity steps (http-request served by an activity that
 *   answers at once): time per step, target pure ≤ a tenth of activity;
 * - executions per second for a 10-step graph of pure steps (concurrency 10);
 * - signal delivery round trip (update call until the waiting step resumed), p50.
 * Persistence activities are in-memory here; the point is the engine's cost.
 */
import { randomUUID } from 'node:crypto';
import { Worker } from '@temporalio/worker';
import type { ExecutionActivities } from '../activities/execution-activities';
import { workflowBundle } from '../worker/worker';
import { createTestTemporalEnv } from '../test/support/temporal';
import { validateDefinition } from '../workflows/engine/validate';
import type { ExecutionInput } from '../workflows/engine/runtime/types';
import { deliverSignalUpdate, stateQuery } from '../workflows/messages';
import { percentile, round, type BenchReport } from './report';

const activities: ExecutionActivities = {
  callPlugin: () => Promise.resolve({ status: 'success', outputs: { statusCode: 200 } }),
  resolveVars: () => Promise.resolve({}),
  recordEvents: () => Promise.resolve(),
  finishExecution: () => Promise.resolve(),
  prepareChild: () => Promise.reject(new Error('unused')),
  prepareScheduledExecution: () => Promise.reject(new Error('unused')),
};

function chain(count: number, step: (i: number) => Record<string, unknown>): Record<string, unknown> {
  const steps: Array<Record<string, unknown>> = [{ id: 'start', type: 'trigger', pluginType: 'manual', config: {} }];
  let previous = 'start';
  for (let i = 1; i <= count; i++) {
    steps.push({ id: `s${i}`, ...step(i), dependsOn: [previous] });
    previous = `s${i}`;
  }
  return { name: 'bench', steps, variables: { n: { initialValue: 0 } } };
}

const pureStep = (i: number): Record<string, unknown> =>
  i % 3 === 0
    ? { type: 'decider', pluginType: 'conditional', config: { expression: 'variables.n >= 0' }, joinStrategy: 'any' }
    : i % 3 === 1
      ? { type: 'module', pluginType: 'set-variable', config: { path: 'n', value: '${{ variables.n + 1 }}' } }
      : { type: 'module', pluginType: 'log', config: { message: 'n is ${{ variables.n }}' } };
const activityStep = (): Record<string, unknown> => ({ type: 'module', pluginType: 'http-request', config: { url: 'https://example.test/' } });

function input(doc: Record<string, unknown>): ExecutionInput {
  const validated = validateDefinition(doc);
  if (!validated.definition) throw new Error(JSON.stringify(validated.errors));
  return {
    executionId: `exec_${randomUUID().replace(/-/g, '')}`,
    organizationId: 'bench',
    workflowId: 'wf_bench',
    revision: 1,
    definition: validated.definition,
    inputs: {},
    trigger: { source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
  };
}

export async function run(): Promise<BenchReport> {
  const env = await createTestTemporalEnv('local', { server: 'stand-in' });
  const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, workflowBundle: await workflowBundle(), activities });
  const running = worker.run();
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
  try {
    const pureMs = await timePerRun(chain(40, pureStep), 10);
    const activityMs = await timePerRun(chain(40, activityStep), 5);
    const perPure = pureMs / 40;
    const perActivity = activityMs / 40;

    const ten = chain(10, pureStep);
    const total = 100;
    let next = 0;
    const started = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (next < total) {
          next += 1;
          await execute(ten);
        }
      }),
    );
    const perSecond = total / (Number(process.hrtime.bigint() - started) / 1e9);

    const roundTrips: number[] = [];
    const waiter = chain(1, () => ({ type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' } }));
    for (let i = 0; i < 20; i++) {
      const execution = input(waiter);
      const handle = await client.workflow.start('runWorkflowExecution', { taskQueue, workflowId: execution.executionId, args: [execution] });
      while ((await handle.query(stateQuery)).pendingWaits.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const t0 = process.hrtime.bigint();
      await handle.executeUpdate(deliverSignalUpdate, { args: [{ name: 'go', payload: { i }, signalId: `sig_${i}` }] });
      roundTrips.push(Number(process.hrtime.bigint() - t0) / 1e6);
      await handle.result();
    }

    return {
      name: 'execution engine on the Temporal stand-in (one worker, in-memory persistence)',
      figures: {
        '40 pure steps: ms per execution': round(pureMs, 1),
        '40 activity steps: ms per execution': round(activityMs, 1),
        'ms per pure step': round(perPure, 3),
        'ms per activity step': round(perActivity, 3),
        'pure / activity step time': round(perPure / perActivity, 3),
        '10-step executions per second (concurrency 10)': round(perSecond, 1),
        'signal round trip p50 ms (update until the step resumed)': round(percentile(roundTrips, 50), 2),
      },
      targets: [{ label: 'time per pure step <= 1/10 of the time per activity step', met: perPure <= perActivity / 10 }],
    };
  } finally {
    worker.shutdown();
    await running;
    await env.teardown();
  }
}
