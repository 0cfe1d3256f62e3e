/**
 * Persists one batch of a workflow's step events and log lines, with what it
 * reports of the run (variables, waiting), atomically: one statement, or a
 * transaction when the batch opens or closes a wait. Replaying a
 * batch changes nothing (every write is keyed by the workflow's sequence numbers).
 */
import type { DataSource } from 'typeorm';
import { ExecutionEventRepository } from '../db/repositories/execution-event-repository';
import { ExecutionLogRepository } from '../db/repositories/execution-log-repository';
import { ExecutionRepository, type FlowScope } from '../db/repositories/execution-repository';
import { ExecutionStepRepository } from '../db/repositories/execution-step-repository';
import { ExecutionWaitRepository, type WaitWrite } from '../db/repositories/execution-wait-repository';
import { LightStepResultRepository } from '../db/repositories/light-step-result-repository';
import { writeStepBatch, type StepBatchWrite } from '../db/repositories/step-batch-statement';
import { goesWithEnd, writeStepBatchWithEnd, type RunEnd } from '../db/repositories/step-batch-end-statement';
import type { StreamEventData } from '../db/entities/execution-event';
import { lastStepTail, type ActivityCall, type LastStepEnd, type StepEvent, type StepRecord } from '../workflows/engine';
import type { EventBatch, TailNumbering } from './execution-activity-types';

/** `lightResult`: a light step's stored result, written with the batch (one commit). */
export async function recordEventBatch(
  dataSource: DataSource,
  batch: EventBatch,
  lightResult?: StepBatchWrite['lightResult'],
): Promise<void> {
  const { write, opened, closed, answered, latest } = batchWrites(batch, lightResult);
  if (opened.size === 0 && closed.length === 0 && answered.length === 0) {
    // The usual batch (no wait opened or closed): one statement.
    await writeStepBatch(dataSource.manager, write);
    return;
  }
  await dataSource.transaction(async (manager) => {
    await new ExecutionEventRepository(manager).insertBatch(
      batch.executionId,
      batch.firstEventSeq,
      batch.events.map((event) => streamEvent(event, latest)),
    );
    const waits = new ExecutionWaitRepository(manager);
    await waits.openAll(batch.executionId, [...opened.values()]);
    await waits.appendAnswers(
      batch.executionId,
      answered.map(({ waitId, by, at, approved, signalId }) => ({ waitId, by, at, approved, signalId })),
    );
    await waits.closeAll(batch.executionId, closed);
    await new ExecutionStepRepository(manager).upsertRecords(batch.executionId, write.records);
    await new ExecutionLogRepository(manager).insertBatch(batch.executionId, batch.logs);
    if (batch.progress) await new ExecutionRepository(manager).recordProgress(batch.executionId, batch.progress);
    if (lightResult)
      await new LightStepResultRepository(manager).remember(lightResult.workflowRunId, lightResult.callKey, lightResult.result);
  });
}

/**
 * A run's last batch written with its end, in one statement (db/repositories/step-batch-end-statement.ts), when
 * it can be: it opens or closes no wait and leaves no step running. Otherwise the batch, then the end, as before.
 * Answers the concurrency key the run held (its slot frees: executions/flow/end-run.ts).
 */
export async function recordLastBatchWithEnd(
  dataSource: DataSource,
  batch: EventBatch,
  end: RunEnd,
  lightResult?: StepBatchWrite['lightResult'],
): Promise<FlowScope | undefined> {
  const { write, opened, closed, answered } = batchWrites(batch, lightResult);
  if (opened.size === 0 && closed.length === 0 && answered.length === 0 && goesWithEnd(write))
    return writeStepBatchWithEnd(dataSource.manager, write, end);
  await recordEventBatch(dataSource, batch, lightResult);
  return new ExecutionRepository(dataSource.manager).finish(batch.executionId, end.status, end.outputs, end.error, end.eventSeq);
}

/**
 * A light step's call whose success ends the run (engine rule `end-with-last-light-step`): the batch the workflow
 * sent, the call's stored result, the step's last records (settled from the result by the engine's own code,
 * numbered on from `end`) and the run's end (completed, no outputs), written as recordLastBatchWithEnd writes a
 * run's last batch. False, writing nothing, when the result does not complete the step in one attempt: the
 * workflow then ends the run itself.
 */
export async function recordStepWithEnd(
  dataSource: DataSource,
  request: { call: ActivityCall; batch?: EventBatch; end: TailNumbering; endsRun: LastStepEnd },
  lightResult: NonNullable<StepBatchWrite['lightResult']>,
): Promise<FlowScope | undefined | false> {
  const { call, batch, end, endsRun } = request;
  const tail = lastStepTail(endsRun, call.stepId, lightResult.result, new Date().toISOString(), call.maxOutputBytes);
  if (!tail || (batch && batch.firstEventSeq + batch.events.length !== end.firstEventSeq)) return false;
  const logs = tail.logs.map((log, i) => ({ ...log, seq: end.logSeq + i, stepSeq: end.stepSeq + i }));
  const last: EventBatch = batch
    ? { ...batch, events: [...batch.events, ...tail.events], logs: [...batch.logs, ...logs] }
    : { executionId: call.executionId, organizationId: call.organizationId, firstEventSeq: end.firstEventSeq, events: tail.events, logs };
  const eventSeq = end.firstEventSeq + tail.events.length;
  return recordLastBatchWithEnd(dataSource, last, { status: 'completed', outputs: {}, error: null, eventSeq }, lightResult);
}

/** What a batch writes: its step records (the last state of each step run), events and logs, and the waits it opens, answers and closes. */
function batchWrites(batch: EventBatch, lightResult?: StepBatchWrite['lightResult']) {
  const { executionId, events, logs } = batch;
  // The last event of each step run wins: only that state is written.
  const latest = new Map<string, StepRecord>();
  // Waits opened in this batch (minus those already released in it), and waits released.
  const opened = new Map<string, WaitWrite>();
  const closed: string[] = [];
  // Answers counted by declared-answer waits (the inbox and the approval gate read them on the wait's row).
  const answered: Array<Extract<StepEvent, { type: 'wait.answered' }>> = [];
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
      // A step its condition skipped ends the run it started; one skipped by a dead path never started (run 0).
      latest.set(`${event.stepId}\u0000${event.run ?? 'skipped'}`, {
        stepId: event.stepId,
        status: 'skipped',
        run: event.run ?? 0,
        items: [],
        outputs: {},
        activePorts: [],
        ...(event.startedAt !== undefined ? { startedAt: event.startedAt } : {}),
        completedAt: event.at,
      });
    } else if (event.type === 'wait.started') {
      opened.set(event.waitId, {
        waitId: event.waitId,
        stepId: event.stepId,
        signalNames: event.signalNames,
        correlationKey: event.correlationKey ?? null,
        since: event.at,
        timeoutAt: event.timeoutAt ?? null,
        callbackUrl: event.callbackUrl ?? null,
        answer: event.answer ?? null,
      });
    } else if (event.type === 'wait.answered') answered.push(event);
    else if (!opened.delete(event.waitId)) closed.push(event.waitId);
  }
  // A running step's live progress, unless the batch already ends (or restarts) that run: its events say more.
  for (const record of batch.liveSteps ?? []) {
    const key = `${record.stepId}\u0000${record.run}`;
    const known = latest.get(key);
    if (!known || known.status === 'running') latest.set(key, known ? { ...known, metadata: record.metadata } : record);
  }
  const records = [...latest.values()];
  const write: StepBatchWrite = {
    executionId,
    firstEventSeq: batch.firstEventSeq,
    events: events.map((event) => streamEvent(event, latest)),
    records,
    logs,
    progress: batch.progress,
    lightResult,
  };
  return { write, opened, closed, answered, latest };
}

/**
 * What the event stream shows of a step event: small, never the step's items. A step event whose data the
 * step run's row (written in this batch) gives back exactly is marked `fromStep`, and stored as a reference to it.
 */
function streamEvent(event: StepEvent, latest: Map<string, StepRecord>): StreamEventData {
  switch (event.type) {
    case 'step.started':
      return { type: event.type, data: { stepId: event.stepId, run: event.run, at: event.at }, fromStep: isoText(event.at) };
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
        // The run's row holds this record (no later event of the run in the batch) and its end time.
        fromStep:
          latest.get(`${event.stepId}\u0000${event.run}`) === event.record && event.record.completedAt === event.at && isoText(event.at),
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

/** Whether a timestamp column gives `at` back as the same text (the workflow writes toISOString's). */
function isoText(at: string): boolean {
  const ms = Date.parse(at);
  return Number.isFinite(ms) && new Date(ms).toISOString() === at;
}
