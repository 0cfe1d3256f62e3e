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
import { encodeEvents, insertEventsSql } from './execution-event-repository';
import type { LogWrite } from './execution-log-repository';
import { insertLogsSql } from './execution-log-repository';
import { upsertStepsSql } from './execution-step-repository';
import { insertLightResultSql } from './light-step-result-repository';
import { progressParams, recordProgressSql, type RunProgress } from './execution-progress-sql';
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
  const params: unknown[] = [];
  const { parts, shape } = stepBatchParts(batch, (value) => `$${params.push(value)}`);
  if (parts.length === 0) return;
  const ctes = parts.map((sql, i) => `w${i} AS (${sql})`).join(',\n');
  await poolQuery(manager, shape, `WITH ${ctes} SELECT 1`, params);
}

/**
 * The writes of a batch as data-modifying statements (each a CTE of one statement), with the statement's
 * name by its shape (each shape is prepared once per connection) and the parameter holding its records.
 * `executionIdParam`: the execution id's placeholder when the caller numbered it already.
 */
export function stepBatchParts(
  batch: StepBatchWrite,
  param: (value: unknown) => string,
  executionIdParam?: string,
): { parts: string[]; shape: string; recordsParam?: string } {
  const executionId = () => (executionIdParam ??= param(batch.executionId));
  const parts: string[] = [];
  if (batch.events.length > 0) parts.push(insertEventsSql(executionId(), param(batch.firstEventSeq), param(encodeEvents(batch.events))));
  let recordsParam: string | undefined;
  if (batch.records.length > 0) {
    recordsParam = param(JSON.stringify(batch.records));
    parts.push(...upsertStepsSql(executionId(), recordsParam));
  }
  if (batch.logs.length > 0) parts.push(insertLogsSql(executionId(), param(JSON.stringify(batch.logs))));
  const progress = batch.progress !== undefined && (batch.progress.variables !== undefined || batch.progress.waiting !== undefined);
  if (progress) parts.push(recordProgressSql(executionId(), progressParams(batch.progress!, param)));
  const light = batch.lightResult;
  if (light) parts.push(insertLightResultSql(param(light.workflowRunId), param(light.callKey), param(JSON.stringify(light.result))));
  const shape = `step-batch-${batch.events.length > 0 ? 'e' : ''}${batch.records.length > 0 ? 's' : ''}${batch.logs.length > 0 ? 'l' : ''}${progress ? `p${batch.progress!.variables ? 'v' : ''}${batch.progress!.waiting !== undefined ? 'w' : ''}` : ''}${light ? 'r' : ''}`;
  return { parts, shape, ...(recordsParam !== undefined ? { recordsParam } : {}) };
}
