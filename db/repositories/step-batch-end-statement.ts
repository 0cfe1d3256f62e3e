/**
 * A run's last batch of step records written with its end in ONE statement: the batch's writes
 * (step-batch-statement.ts) and the end's (ExecutionRepository.finish: the final status, the step runs
 * still running settled, the end event) as the CTEs of one statement. One round trip and one commit where
 * the workflow's last local activity made two, and a reader never sees the last steps without the end.
 * Only for a batch with no step run still running (the end settles those; a statement must not write a
 * row twice): the caller writes any other batch apart, then the end. A light step's stored result may go with
 * it (a last light step that ends the run: activities/record-event-batch.ts, recordStepWithEnd).
 */
import type { EntityManager } from 'typeorm';
import type { ExecutionStatus } from '../entities/execution';
import { poolQuery } from '../sql';
import { bind, raw, sql } from '../sql-builder';
import { FINISHED_RETURNING, heldFlowScope, type FlowScope } from './execution-repository';
import { settleStepsSql } from './execution-step-repository';
import { stepBatchCtes, stepBatchParts, type StepBatchWrite } from './step-batch-statement';

export interface RunEnd {
  status: ExecutionStatus;
  outputs: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  /** Position of the end event (from the workflow). */
  eventSeq: number;
}

/** Whether `batch` can be written in the end's statement. */
export function goesWithEnd(batch: StepBatchWrite): boolean {
  return batch.records.every((record) => record.status !== 'running' && record.status !== 'waiting');
}

/** Writes the batch and the end; answers the concurrency key the run held, as ExecutionRepository.finish does. */
export async function writeStepBatchWithEnd(manager: EntityManager, batch: StepBatchWrite, end: RunEnd): Promise<FlowScope | undefined> {
  if (!goesWithEnd(batch)) throw new Error('this batch is written apart from the end');
  const executionId = bind(batch.executionId);
  // The run's variables go on the end's own update of the row (the batch's update of it would be a second one).
  const variables = batch.progress?.variables;
  const { parts, shape, records } = stepBatchParts({ ...batch, progress: undefined }, executionId);
  const [status, error] = [bind(end.status), bind(end.error === null ? null : JSON.stringify(end.error))];
  const variablesSet = variables === undefined ? raw('') : sql`, variables = ${JSON.stringify(variables)}::jsonb`;
  const finished = `w${parts.length}`;
  const ctes = stepBatchCtes([
    ...parts,
    sql`UPDATE executions SET status = ${status}, outputs = ${end.outputs === null ? null : JSON.stringify(end.outputs)}, error = ${error},
       completed_at = now(), updated_at = now(), run_health = NULL${variablesSet}
     WHERE id = ${executionId} AND status IN ('running', 'waiting') ${FINISHED_RETURNING}`,
    settleStepsSql(raw(`(SELECT id FROM ${finished})`), status, records),
    sql`INSERT INTO execution_events (execution_id, seq, type, data)
     SELECT id, ${end.eventSeq}::int, 'execution.' || ${status}, jsonb_build_object('status', ${status}::text, 'error', ${error}::jsonb)
     FROM ${raw(finished)}
     ON CONFLICT DO NOTHING`,
  ]);
  const [held] = await poolQuery<FlowScope>(
    manager,
    `${shape}-end${variables === undefined ? '' : 'v'}`,
    sql`WITH ${ctes} ${heldFlowScope(finished)}`,
  );
  return held;
}
