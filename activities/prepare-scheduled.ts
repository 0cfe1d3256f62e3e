/**
 * A cron tick: resolve the revision the schedule names, record the execution
 * under the run's Temporal workflow id with the idempotency key
 * `cron:<triggerId>:<tick floored to the second>`, and return its input.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { insertExecution, setTemporalRunId } from '../db/stores/executions';
import { resolveRunnable } from '../db/stores/runnable-revision';
import type { ExecutionInput, TriggerInfo } from '../workflows/engine/runtime/types';
import type { ScheduledPreparation } from './execution-activities';

export async function prepareScheduledExecution(dataSource: DataSource, namespace: string, request: ScheduledPreparation): Promise<ExecutionInput> {
  const { start } = request;
  const runnable = await resolveRunnable(dataSource, start.organizationId, start.workflowId, { revision: start.revision });
  if (typeof runnable === 'string') {
    throw ApplicationFailure.nonRetryable(`the scheduled workflow cannot run: ${runnable.replace(/-/g, ' ')}`, 'SCHEDULED_START_FAILED');
  }
  const firedAt = new Date(Math.floor(request.firedAt / 1000) * 1000).toISOString();
  const trigger: TriggerInfo = { stepId: start.trigger.id, source: 'cron', payload: { firedAt, schedule: start.trigger.schedule }, receivedAt: firedAt };
  const { row, created } = await insertExecution(dataSource, {
    id: request.executionId,
    organizationId: start.organizationId,
    workflowId: runnable.workflow.id,
    workflowKey: runnable.workflow.key,
    revision: runnable.revision,
    alias: start.alias,
    inputs: {},
    trigger: { ...trigger },
    correlationKey: null,
    idempotencyKey: `cron:${start.trigger.id}:${firedAt}`,
    parentExecutionId: null,
    temporalNamespace: namespace,
    createdBy: null,
  });
  // The same tick recorded by another run (a retried start): this run is the duplicate and does nothing.
  if (!created && row.id !== request.executionId) {
    throw ApplicationFailure.nonRetryable(`tick ${firedAt} of trigger ${start.trigger.id} already ran as ${row.id}`, 'DUPLICATE_TICK');
  }
  await setTemporalRunId(dataSource, request.executionId, request.runId);
  return {
    executionId: request.executionId,
    organizationId: start.organizationId,
    workflowId: runnable.workflow.id,
    workflowKey: runnable.workflow.key ?? undefined,
    revision: runnable.revision,
    alias: start.alias,
    definition: runnable.definition,
    inputs: {},
    trigger,
    idempotencyKey: `cron:${start.trigger.id}:${firedAt}`,
  };
}
