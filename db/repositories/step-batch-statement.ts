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
import { bind, join, raw, sql, type Sql } from '../sql-builder';
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
  // One parameter for the execution id, however many of the writes name it.
  const executionId = bind(batch.executionId);
  const parts: Sql[] = [];
  if (batch.events.length > 0) parts.push(insertEventsSql(executionId, batch.firstEventSeq, encodeEvents(batch.events)));
  if (batch.records.length > 0) parts.push(...upsertStepsSql(executionId, JSON.stringify(batch.records)));
  if (batch.logs.length > 0) parts.push(insertLogsSql(executionId, JSON.stringify(batch.logs)));
  const progress = batch.progress !== undefined && (batch.progress.variables !== undefined || batch.progress.waiting !== undefined);
  if (progress) parts.push(recordProgressSql(executionId, batch.progress!));
  const light = batch.lightResult;
  if (light) parts.push(insertLightResultSql(light.workflowRunId, light.callKey, JSON.stringify(light.result)));
  if (parts.length === 0) return;
  const ctes = join(
    parts.map((part, i) => sql`${raw(`w${i}`)} AS (${part})`),
    ',\n',
  );
  // Named by its shape, so each shape is prepared once per connection.
  const shape =
    `step-batch-${batch.events.length > 0 ? 'e' : ''}${batch.records.length > 0 ? 's' : ''}${batch.logs.length > 0 ? 'l' : ''}${progress ? `p${batch.progress!.variables ? 'v' : ''}${batch.progress!.waiting !== undefined ? 'w' : ''}` : ''}${light ? 'r' : ''}` as const;
  await poolQuery(manager, shape, sql`WITH ${ctes} SELECT 1`);
}
