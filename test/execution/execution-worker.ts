/**
 * The execution workflow on a real Temporal SDK worker with in-memory activities, for a describe block:
 * one Temporal environment, one worker on a task queue of its own, and every history the block produced
 * replayed at its end (execution-workflow.test.ts, shared-engine-modules.test.ts).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ExecutionActivities } from '../../activities/create-execution-activities';
import type { EventBatch, FinishRequest } from '../../activities/execution-activity-types';
import type { ExecutionInput, PluginResult } from '../../workflows/engine';
import { workflowBundle } from '../../worker/worker';
import { createTestTemporalEnv } from '../support/temporal';

export interface Recorded {
  batches: EventBatch[];
  finished: FinishRequest[];
}

function echo(url: unknown): Record<string, unknown> {
  return { statusCode: 200, body: { echoed: url ?? null } };
}

function fakeActivities(recorded: Recorded): ExecutionActivities {
  return {
    // Shaped as http-request answers (the validator knows its fields): the URL called comes back in the body.
    callPlugin: (call) => Promise.resolve<PluginResult>({ status: 'success', outputs: echo(call.config.url) }),
    callLightStep: ({ call, batch }) => {
      if (batch) recorded.batches.push(batch);
      return Promise.resolve({ result: { status: 'success', outputs: echo(call.config.url) }, batchWritten: true });
    },
    notifyWait: () => Promise.resolve({ sent: false }),
    // Like the real activity: names without a value are simply absent.
    resolveVars: ({ names }) =>
      Promise.resolve(Object.fromEntries(names.filter((name) => !name.startsWith('MISSING')).map((name) => [name, `value-of-${name}`]))),
    recordEvents: (batch) => {
      recorded.batches.push(batch);
      return Promise.resolve();
    },
    // Like the real activity: the run's last batch of records comes with the end.
    finishExecution: (request) => {
      if (request.batch) recorded.batches.push(request.batch);
      recorded.finished.push(request);
      return Promise.resolve();
    },
    prepareChild: () => Promise.reject(new Error('not used here')),
    prepareScheduledExecution: () => Promise.reject(new Error('not used here')),
  };
}

/** One Temporal environment and worker for a describe block; every history it produced must replay. */
export function useExecutionWorker(kind: 'local' | 'time-skipping') {
  const suite = {
    env: undefined as unknown as TestWorkflowEnvironment,
    recorded: { batches: [], finished: [] } as Recorded,
    start: async (input: ExecutionInput): Promise<WorkflowHandleWithFirstExecutionRunId> => {
      const handle = await suite.env.client.workflow.start('runWorkflowExecution', {
        taskQueue,
        workflowId: input.executionId,
        args: [input],
      });
      handles.push(handle);
      return handle;
    },
  };
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `exec-${randomUUID().slice(0, 8)}`;
  const handles: WorkflowHandle[] = [];

  before(async () => {
    suite.env = await createTestTemporalEnv(kind);
    worker = await Worker.create({
      connection: suite.env.nativeConnection,
      namespace: suite.env.namespace ?? 'default',
      taskQueue,
      workflowBundle: await workflowBundle(),
      activities: fakeActivities(suite.recorded),
    });
    running = worker.run();
  });

  after(async () => {
    worker?.shutdown();
    await running;
    // Every history this suite produced replays without non-determinism.
    const histories = await Promise.all(
      handles.map(async (handle) => ({ workflowId: handle.workflowId, history: await handle.fetchHistory() })),
    );
    for await (const result of Worker.runReplayHistories({ workflowBundle: await workflowBundle() }, histories)) {
      assert.equal(result.error, undefined, `${result.workflowId} does not replay: ${String(result.error)}`);
    }
    await suite.env?.teardown();
  });
  return suite;
}
