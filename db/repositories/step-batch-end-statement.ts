/**
 * A run's last batch of step records written with its end in ONE statement: the batch's writes
 * (step-batch-statement.ts) and the end's (ExecutionRepository.finish: the final status, the step runs
 * still running settled, the end event) as the CTEs of one statement. One round trip and one commit where
 * the workflow's last local activity made two, and a reader never sees the last steps without the end.
 * Only for a batch with no step run still running (the end settles those; a statement must not write a
 * row twice) and no light step result: the caller writes any other batch apart, then the end.
 */
import type { EntityManager } from 'typeorm';
import type { ExecutionStatus } from '../entities/execution';
import { poolQuery } from '../sql';
import { settleStepsSql } from './execution-step-repository';
import { stepBatchParts, type StepBatchWrite } from './step-batch-statement';

export interface RunEnd {
  status: ExecutionStatus;
  outputs: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  /** Position of the end event (from the workflow). */
  eventSeq: number;
}

/** Whether `batch` can be written in the end's statement. */
export function goesWithEnd(batch: StepBatchWrite): boolean {
  return batch.lightResult === undefined && batch.records.every((record) => record.status !== 'running' && record.status !== 'waiting');
}

export async function writeStepBatchWithEnd(manager: EntityManager, batch: StepBatchWrite, end: RunEnd): Promise<void> {
  if (!goesWithEnd(batch)) throw new Error('this batch is written apart from the end');
  const params: unknown[] = [batch.executionId];
  const param = (value: unknown) => `$${params.push(value)}`;
  // The run's variables go on the end's own update of the row (the batch's update of it would be a second one).
  const variables = batch.progress?.variables;
  const { parts, shape, recordsParam } = stepBatchParts({ ...batch, progress: undefined }, param, '$1');
  const status = param(end.status);
  const outputs = param(end.outputs === null ? null : JSON.stringify(end.outputs));
  const error = param(end.error === null ? null : JSON.stringify(end.error));
  const eventSeq = param(end.eventSeq);
  const variablesSet = variables === undefined ? '' : `, variables = ${param(JSON.stringify(variables))}::jsonb`;
  const ctes = [
    ...parts,
    `UPDATE executions SET status = ${status}, outputs = ${outputs}, error = ${error}, completed_at = now(), updated_at = now(),
       run_health = NULL${variablesSet}
     WHERE id = $1 AND status IN ('running', 'waiting') RETURNING id`,
    settleStepsSql(`(SELECT id FROM w${parts.length})`, `${status}::text`, recordsParam),
  ];
  await poolQuery(
    manager,
    `${shape}-end${variables === undefined ? '' : 'v'}`,
    `WITH ${ctes.map((sql, i) => `w${i} AS (${sql})`).join(',\n')}
     INSERT INTO execution_events (execution_id, seq, type, data)
     SELECT id, ${eventSeq}::int, 'execution.' || ${status}, jsonb_build_object('status', ${status}::text, 'error', ${error}::jsonb)
     FROM w${parts.length}
     ON CONFLICT DO NOTHING`,
    params,
  );
}
