/**
 * A batch of a run's step records in ONE statement: its events, step records,
 * log lines, the run's variables and waiting status when they changed, and (for
 * a light step) the call's stored result, each table's write (written once, in
 * its repository) as a data-modifying CTE. One round trip and one commit instead
 * of a transaction of five: this is on the path of every light step. Atomic like
 * the transaction it replaces, and as idempotent (every insert is keyed by the
 * workflow's sequence numbers). A batch that opens or closes a wait is written
 * in a transaction instead (activities/record-event-batch.ts).
 */
import type { EntityManager } from 'typeorm';
import { poolQuery } from '../sql';
import type { StepBatchStatement } from '../hot-statements';
import { bind, join, raw, sql, type Bound, type Sql } from '../sql-builder';
import { encodeEvents, insertEventsSql } from './execution-event-repository';
import type { LogWrite } from './execution-log-repository';
import { insertLogsSql } from './execution-log-repository';
import { upsertStepsSql } from './execution-step-repository';
import { insertLightResultSql } from './light-step-result-repository';
import { recordProgressSql, type RunProgress } from './execution-progress-sql';
import type { StreamEventData } from '../entities/execution-event';
import type { ExecutionStepEntity } from '../entities/execution-step';
import type { PluginResult } from '../../workflows/engine';

export interface StepBatchWrite {
  executionId: string;
  firstEventSeq: number;
  events: StreamEventData[];
  records: Array<ExecutionStepEntity['record']>;
  logs: LogWrite[];
  /** The run's variables and waiting status, each when it changed since the last batch. */
  progress?: RunProgress;
  lightResult?: { workflowRunId: string; callKey: string; result: PluginResult };
}

export async function writeStepBatch(manager: EntityManager, batch: StepBatchWrite): Promise<void> {
  const { parts, shape } = stepBatchParts(batch);
  if (parts.length === 0) return;
  await poolQuery(manager, shape, sql`WITH ${stepBatchCtes(parts)} SELECT 1`);
}

/** The writes as the CTEs `w0`, `w1`, … of one statement. */
export function stepBatchCtes(parts: Sql[]): Sql {
  return join(
    parts.map((part, i) => sql`${raw(`w${i}`)} AS (${part})`),
    ',\n',
  );
}

/**
 * The writes of a batch as data-modifying statements (each a CTE of one statement), with the statement's
 * name by its shape (each shape is prepared once per connection) and the value holding its records.
 * `executionId`: the execution id's value when the caller binds it for writes of its own.
 */
export function stepBatchParts(
  batch: StepBatchWrite,
  executionId: Bound = bind(batch.executionId),
): { parts: Sql[]; shape: StepBatchStatement; records?: Bound } {
  const parts: Sql[] = [];
  if (batch.events.length > 0) parts.push(insertEventsSql(executionId, batch.firstEventSeq, encodeEvents(batch.events)));
  const records = batch.records.length > 0 ? bind(JSON.stringify(batch.records)) : undefined;
  if (records) parts.push(...upsertStepsSql(executionId, records));
  if (batch.logs.length > 0) parts.push(insertLogsSql(executionId, JSON.stringify(batch.logs)));
  const progress = batch.progress !== undefined && (batch.progress.variables !== undefined || batch.progress.waiting !== undefined);
  if (progress) parts.push(recordProgressSql(executionId, batch.progress!));
  const light = batch.lightResult;
  if (light) parts.push(insertLightResultSql(light.workflowRunId, light.callKey, JSON.stringify(light.result)));
  const shape: StepBatchStatement = `step-batch-${batch.events.length > 0 ? 'e' : ''}${batch.records.length > 0 ? 's' : ''}${batch.logs.length > 0 ? 'l' : ''}${progress ? `p${batch.progress!.variables ? 'v' : ''}${batch.progress!.waiting !== undefined ? 'w' : ''}` : ''}${light ? 'r' : ''}`;
  return { parts, shape, ...(records !== undefined ? { records } : {}) };
}
