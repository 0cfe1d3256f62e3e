/**
 * The end-to-end bench's plumbing (end-to-end.bench.ts and end-to-end-server-limit.ts):
 * the server CPU meter, the bare Temporal worker, the client process, and definitions
 * published through the API.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { ExecEnv } from '../test/executions-api/support';
import { chain, trigger } from '../test/support/definitions';
import type { BareActivities } from './bare-temporal-workflows';

export const mean = (values: number[]): number => values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * CPU ms (user + system, with reaped children's) of this process and its descendants, the
 * client's process excepted: the API, the worker, the Temporal dev server and embedded
 * PostgreSQL. Linux /proc; NaN elsewhere.
 */
export function serverCpuMs(exceptPid: number | undefined): number {
  if (!existsSync('/proc/self/stat')) return NaN;
  const processes = new Map<number, { ppid: number; ticks: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // After the command: state, ppid, …; utime, stime, cutime, cstime are fields 14-17 of stat(5).
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      processes.set(Number(entry), { ppid: Number(fields[1]), ticks });
    } catch {
      // the process ended while we listed it
    }
  }
  const inTree = (pid: number): boolean => {
    for (let at = pid; at > 1; at = processes.get(at)?.ppid ?? 0) {
      if (at === exceptPid) return false;
      if (at === process.pid) return true;
    }
    return false;
  };
  let ticks = 0;
  for (const [pid, { ticks: own }] of processes) if (inTree(pid)) ticks += own;
  return ticks * 10; // USER_HZ is 100 on Linux
}

export type BareWorkflow = 'sequentialActivities' | 'sequentialLocalActivities' | 'oneActivity' | 'trivialWorkflow';

/** Bare Temporal: a worker with a no-op activity on its own task queue of the same server. */
export async function bareWorker(env: TestWorkflowEnvironment) {
  const noop = (): void => {};
  const logger = { trace: noop, debug: noop, info: noop, warn: noop, error: noop, log: noop };
  const bundle = await bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'bare-temporal-workflows.ts'), logger });
  const taskQueue = `bare-${randomUUID().slice(0, 8)}`;
  const activities: BareActivities = { noop: () => Promise.resolve() };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: bundle,
    activities,
  });
  const running = worker.run();
  const execute = (workflow: BareWorkflow, args: unknown[] = []) =>
    env.client.workflow.execute(workflow, { taskQueue, workflowId: `${taskQueue}-${randomUUID()}`, args });
  return {
    execute,
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
