/**
 * A cron tick: resolve the revision the schedule names, record the execution
 * under the run's Temporal workflow id with the idempotency key
 * `cron:<triggerId>:<tick floored to the second>`, and return its input.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { DataSource } from 'typeorm';
import { setTemporalRunId } from '../db/stores/executions';
import { recordRun, resolveRunnable } from '../db/stores/runnable-revision';
import type { ExecutionInput, TriggerInfo } from '../workflows/engine';
import type { ScheduledPreparation } from './execution-activity-types';

export async function prepareScheduledExecution(
  dataSource: DataSource,
  namespace: string,
  publicBaseUrl: string | undefined,
  request: ScheduledPreparation,
): Promise<ExecutionInput> {
  const { start } = request;
  const runnable = await resolveRunnable(dataSource, start.organizationId, start.workflowId, { revision: start.revision });
  if (typeof runnable === 'string') {
    throw ApplicationFailure.nonRetryable(`the scheduled workflow cannot run: ${runnable.replace(/-/g, ' ')}`, 'SCHEDULED_START_FAILED');
  }
  const firedAt = new Date(Math.floor(request.firedAt / 1000) * 1000).toISOString();
  const trigger: TriggerInfo = { stepId: start.trigger.id, source: 'cron', payload: { firedAt, schedule: start.trigger.schedule }, receivedAt: firedAt };
  const idempotencyKey = `cron:${start.trigger.id}:${firedAt}`;
  const { row, created, input } = await recordRun(dataSource, {
    id: request.executionId,
    organizationId: start.organizationId,
    runnable: { ...runnable, alias: start.alias },
    inputs: {},
    trigger,
    idempotencyKey,
    createdBy: null,
    temporalNamespace: namespace,
    publicBaseUrl,
  });
  // The same tick recorded by another run (a retried start): this run is the duplicate and does nothing.
  if (!created && row.id !== request.executionId) {
    throw ApplicationFailure.nonRetryable(`tick ${firedAt} of trigger ${start.trigger.id} already ran as ${row.id}`, 'DUPLICATE_TICK');
  }
  await setTemporalRunId(dataSource, request.executionId, request.runId);
  return input;
}
