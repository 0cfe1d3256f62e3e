/**
 * The end-to-end bench's plumbing (end-to-end.bench.ts and end-to-end-server-limit.ts):
 * the server CPU meter, the bare Temporal worker, the client process, and definitions
 * published through the API.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { ExecEnv } from '../test/executions-api/support';
import { chain, trigger } from '../test/support/definitions';
import { bareActivities } from './bare-activities';
import { cpuByComponent } from './cpu-meter';

export const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * CPU ms (user + system, with reaped children's) of this process and its descendants, the
 * client's process excepted: the API, the worker, the Temporal dev server and embedded
 * PostgreSQL. Linux /proc; NaN elsewhere.
 */
export function serverCpuMs(exceptPid: number | undefined): number {
  if (!existsSync('/proc/self/stat')) return NaN;
  return cpuByComponent(() => 'server' as const, exceptPid).get('server') ?? 0;
}

export type BareWorkflow = 'sequentialActivities' | 'sequentialLocalActivities' | 'oneActivity' | 'trivialWorkflow';

/** Bare Temporal: a worker with the bare call activity (bare-activities.ts) on its own task queue of the same server. */
export async function bareWorker(env: TestWorkflowEnvironment) {
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'bare-temporal-workflows.ts'), logger });
  const taskQueue = `bare-${randomUUID().slice(0, 8)}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities: bareActivities,
  });
  const running = worker.run();
  const execute = (workflow: BareWorkflow, args: unknown[] = []) =>
    env.client.workflow.execute(workflow, { taskQueue, workflowId: `${taskQueue}-${randomUUID()}`, args });
  // The same with eager workflow start (a client on the worker's connection), as the project starts its runs.
  const eagerClient = new Client({ connection: env.nativeConnection, namespace: env.namespace ?? 'default' });
  const executeEager = (workflow: BareWorkflow, args: unknown[] = []) =>
    eagerClient.workflow.execute(workflow, { taskQueue, workflowId: `${taskQueue}-${randomUUID()}`, args, requestEagerStart: true });
  return {
    execute,
    executeEager,
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/** start ──▶ s1 ──▶ … ──▶ s<count>, as published through the API. */
export function chainOf(count: number, step: (i: number) => Record<string, unknown>): Record<string, unknown> {
  const steps = chain(trigger(), ...Array.from({ length: count }, (_, i) => ({ id: `s${i + 1}`, ...step(i + 1) })));
  return { name: 'bench', steps, variables: { n: { initialValue: 0 } } };
}

export async function publish(x: ExecEnv, token: string, doc: Record<string, unknown>): Promise<string> {
  const res = await x.t.request.post('/workflows/definitions').set('Authorization', `Bearer ${token}`).send(doc);
  if (res.status !== 201) throw new Error(`publish: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.workflow.id as string;
}

/** Removes what a bench recorded for its organization (its executions and workflows) from the shared database. */
export async function forgetOrganization(x: ExecEnv, org: string): Promise<void> {
  await x.db.query(`DELETE FROM executions WHERE organization_id = $1`, [org]);
  await x.db.query(`DELETE FROM workflows WHERE organization_id = $1`, [org]);
}
