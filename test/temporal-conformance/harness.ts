/**
 * Shared set-up for the conformance suite: one workflow bundle per mocha process,
 * a Temporal test environment per file (stand-in by default, see test/support/temporal.ts),
 * workers on per-file task queues, and the replay check over every history produced.
 */
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { bundleWorkflowCode, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { late } from '../support/late';
import { createTestTemporalEnv, type TestTemporalKind, type TestTemporalOptions } from '../support/temporal';
import { createActivities, type ActivityProbe } from './activities';

let bundlePromise: Promise<WorkflowBundleWithSourceMap> | undefined;

export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundlePromise ??= bundleWorkflowCode({ workflowsPath: path.join(__dirname, 'workflows.ts'), logger: quietLogger() });
  return bundlePromise;
}

function quietLogger() {
  const noop = (): void => {};
  return { trace: noop, debug: noop, info: noop, warn: noop, error: (message: string) => console.error(message), log: noop };
}

export function newProbe(): ActivityProbe {
  return { attempts: {}, heartbeatsSeen: [], cancelled: [] };
}

export function uniqueQueue(prefix: string): string {
  return `${prefix}-${randomUUID().slice(0, 8)}`;
}

export async function createWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  probe: ActivityProbe,
  extra: Partial<Parameters<typeof Worker.create>[0]> = {},
): Promise<Worker> {
  return Worker.create({
    connection: env.nativeConnection,
    namespace: env.namespace ?? 'default',
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities(probe),
    ...extra,
  });
}

/**
 * The mocha hooks of a conformance file: `before` starts a Temporal test environment
 * (building the workflow bundle alongside) and, with `worker`, runs one worker on that
 * queue with that probe; `after` shuts the worker down and tears the environment down.
 * Call it inside `describe`; the environment it returns is filled by `before`.
 */
export function useTemporalEnv(
  kind: TestTemporalKind,
  options: Pick<TestTemporalOptions, 'searchAttributes'> & { worker?: { queue: string; probe: ActivityProbe } } = {},
): TestWorkflowEnvironment {
  const env = late<TestWorkflowEnvironment>('the Temporal test environment');
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;
  before(async function () {
    this.timeout(120_000);
    const [created] = await Promise.all([createTestTemporalEnv(kind, { searchAttributes: options.searchAttributes }), workflowBundle()]);
    env.set(created);
    if (options.worker) {
      worker = await createWorker(created, options.worker.queue, options.worker.probe);
      running = worker.run();
    }
  });
  after(async () => {
    worker?.shutdown();
    await running;
    if (env.isSet) await env.value.teardown();
  });
  return env.value;
}

/** Runs `fn` while a worker runs; shuts the worker down afterwards. */
export async function withWorker<T>(worker: Worker, fn: () => Promise<T>): Promise<T> {
  let result: T | undefined;
  await worker.runUntil(async () => {
    result = await fn();
  });
  return result as T;
}

/**
 * Retries `check` (which asserts) until it passes or `timeoutMs` elapses: visibility on a real
 * Temporal server is eventually consistent (the stand-in's is immediate).
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Histories of every workflow on the given task queues (for the replay check). */
export async function historiesOf(
  client: Client,
  taskQueues: string[],
): Promise<Array<{ workflowId: string; history: temporal.api.history.v1.IHistory }>> {
  const out: Array<{ workflowId: string; history: temporal.api.history.v1.IHistory }> = [];
  const query = taskQueues.map((q) => `TaskQueue = '${q}'`).join(' OR ');
  for await (const info of client.workflow.list({ query })) {
    const history = await client.workflow.getHandle(info.workflowId, info.runId).fetchHistory();
    out.push({ workflowId: info.workflowId, history });
  }
  return out;
}

/** Replays histories against the bundle; returns the failures (empty when all replay cleanly). */
export async function replayFailures(
  histories: Array<{ workflowId: string; history: temporal.api.history.v1.IHistory }>,
): Promise<string[]> {
  const failures: string[] = [];
  const results = Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories);
  for await (const result of results) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  return failures;
}
