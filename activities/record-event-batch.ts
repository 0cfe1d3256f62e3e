/**
 * Persists one batch of a workflow's step events and log lines, in one
 * transaction with the transaction's manager only; replaying a batch changes
 * nothing (every write is keyed by the workflow's sequence numbers).
 */
import type { DataSource, EntityManager } from 'typeorm';
import { ExecutionEventRepository } from '../db/repositories/execution-event-repository';
import { ExecutionLogRepository } from '../db/repositories/execution-log-repository';
import { ExecutionRepository } from '../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../db/repositories/execution-step-repository';
import { ExecutionWaitRepository, type WaitWrite } from '../db/repositories/execution-wait-repository';
import type { StepEvent, StepRecord } from '../workflows/engine';
import type { EventBatch } from './execution-activity-types';

/** `alsoWrite` joins the batch's transaction (a light step's stored result: one commit instead of two). */
export async function recordEventBatch(
  dataSource: DataSource,
  batch: EventBatch,
  alsoWrite?: (manager: EntityManager) => Promise<void>,
): Promise<void> {
  const { executionId, events, logs } = batch;
  // The last event of each step run wins: only that state is written.
  const latest = new Map<string, StepRecord>();
  // Waits opened in this batch (minus those already released in it), and waits released.
  const opened = new Map<string, WaitWrite>();
  const closed: string[] = [];
  for (const event of events) {
    if (event.type === 'step.completed' || event.type === 'step.failed') latest.set(`${event.stepId}\u0000${event.run}`, event.record);
    else if (event.type === 'step.started') {
      latest.set(`${event.stepId}\u0000${event.run}`, {
        stepId: event.stepId,
        status: 'running',
        run: event.run,
        items: [],
        outputs: {},
        activePorts: [],
        startedAt: event.at,
      });
    } else if (event.type === 'step.skipped') {
      latest.set(`${event.stepId}\u0000skipped`, {
        stepId: event.stepId,
        status: 'skipped',
        run: 0,
        items: [],
        outputs: {},
        activePorts: [],
        completedAt: event.at,
      });
    } else if (event.type === 'wait.started') {
      opened.set(event.waitId, {
        waitId: event.waitId,
        stepId: event.stepId,
        signalNames: event.signalNames,
        correlationKey: event.correlationKey ?? null,
        since: event.at,
      });
    } else if (!opened.delete(event.waitId)) closed.push(event.waitId);
  }
  await dataSource.transaction(async (manager) => {
    await new ExecutionEventRepository(manager).insertBatch(executionId, batch.firstEventSeq, events.map(streamEvent));
    const waits = new ExecutionWaitRepository(manager);
    await waits.openAll(executionId, [...opened.values()]);
    await waits.closeAll(executionId, closed);
    await new ExecutionStepRepository(manager).upsertRecords(executionId, [...latest.values()]);
    await new ExecutionLogRepository(manager).insertBatch(executionId, logs);
    if (opened.size > 0 || closed.length > 0) await new ExecutionRepository(manager).refreshWaiting(executionId);
    await alsoWrite?.(manager);
  });
}

/** What the event stream shows of a step event: small, never the step's items. */
function streamEvent(event: StepEvent): { type: string; data: Record<string, unknown> } {
  switch (event.type) {
    case 'step.completed':
    case 'step.failed':
      return {
        type: event.type,
        data: {
          stepId: event.stepId,
          run: event.run,
          at: event.at,
          status: event.record.status,
          activePorts: event.record.activePorts,
          error: event.record.error ?? null,
        },
      };
    case 'wait.started':
      return {
        type: event.type,
        data: { stepId: event.stepId, signalNames: event.signalNames, correlationKey: event.correlationKey ?? null, at: event.at },
      };
    default: {
      const { type, ...data } = event;
      return { type, data };
    }
  }
}
