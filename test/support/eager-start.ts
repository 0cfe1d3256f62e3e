/**
 * Whether a run's first workflow task was handed to a worker eagerly, in the start's reply
 * (executions/deps.ts eagerStarts). Temporal writes such a task's WorkflowTaskStarted in the
 * start's own transaction, so events 1 to 3 carry consecutive task ids; a task dispatched
 * through matching is started in a later transaction, after the start's transfer task took ids
 * of its own.
 */
import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';

export async function firstTaskStartedWithTheStart(client: Client, workflowId: string): Promise<boolean> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const [started, scheduled, taskStarted] = events;
  assert.equal(started?.eventType, 1, 'event 1: WorkflowExecutionStarted');
  assert.equal(scheduled?.eventType, 5, 'event 2: WorkflowTaskScheduled');
  assert.equal(taskStarted?.eventType, 6, 'event 3: WorkflowTaskStarted');
  return Number(taskStarted.taskId) === Number(scheduled.taskId) + 1 && Number(scheduled.taskId) === Number(started.taskId) + 1;
}
