/**
 * The `execution_waits` table: the open signal waits the workflow reported, so a
 * signal by correlation key finds its execution with one index lookup, and reads
 * of the execution show them without a Temporal query. A row is a hint (the
 * delivering update's validator decides); finished executions are filtered by status.
 */
import { In, Repository, type EntityManager } from 'typeorm';
import type { ExecutionEntity } from '../entities/execution';
import { ExecutionWaitEntity } from '../entities/execution-wait';
import type { WaitAnswerGiven } from '../../workflows/engine';
import { deletedCount, rowsOf, selectColumns } from '../sql';
import { answerableSql, type AnswerableFilter } from './answerable-waits';
import { pageOf } from './paged-rows';

/** A wait as the workflow reports it (times as ISO strings); `answers` start empty. */
export type WaitWrite = Omit<ExecutionWaitEntity, 'executionId' | 'since' | 'timeoutAt' | 'answers'> & {
  since: string;
  timeoutAt: string | null;
};

/** An open declared-answer wait with what guards it: the run's workflow NRN (null once deleted) and who started the run. */
export type AnswerWait = ExecutionWaitEntity & { workflowNrn: string | null; startedBy: string | null; executionStatus: string };

/** A wait of the approvals inbox, with its run's workflow. */
export type InboxWait = ExecutionWaitEntity & {
  workflowId: string;
  workflowKey: string | null;
  workflowName: string | null;
  startedBy: string | null;
  /** The run's inputs: the context an approver answers in (who may answer may see what is asked). */
  inputs: Record<string, unknown>;
};

export class ExecutionWaitRepository extends Repository<ExecutionWaitEntity> {
  constructor(manager: EntityManager) {
    super(ExecutionWaitEntity, manager);
  }

  /** Removes the rows of these executions (the retention sweep, inside its batch's transaction); answers how many. */
  async deleteOfExecutions(executionIds: string[]): Promise<number> {
    return deletedCount(this.manager, `DELETE FROM execution_waits WHERE execution_id = ANY($1::text[])`, [executionIds]);
  }

  /** One multi-row insert; waits already recorded (a replayed batch) are left alone. */
  async openAll(executionId: string, waits: WaitWrite[]): Promise<void> {
    if (waits.length === 0) return;
    await rowsOf(
      this.manager,
      `INSERT INTO execution_waits (execution_id, wait_id, step_id, signal_names, correlation_key, since, timeout_at, callback_url, answer)
       SELECT $1, w->>'waitId', w->>'stepId', ARRAY(SELECT jsonb_array_elements_text(w->'signalNames')), w->>'correlationKey',
              (w->>'since')::timestamptz, (w->>'timeoutAt')::timestamptz, w->>'callbackUrl', nullif(w->'answer', 'null'::jsonb)
       FROM jsonb_array_elements($2::jsonb) AS w
       ON CONFLICT DO NOTHING`,
      [executionId, JSON.stringify(waits)],
    );
  }

  /** The open waits of an execution, oldest first (what its reads show). */
  openOf(executionId: string): Promise<ExecutionWaitEntity[]> {
    return this.find({ where: { executionId }, order: { since: 'ASC', waitId: 'ASC' } });
  }

  /** Records answers the workflow counted (a replayed batch adds none twice: one answer per user and wait). */
  async appendAnswers(executionId: string, answered: Array<{ waitId: string } & WaitAnswerGiven>): Promise<void> {
    for (const { waitId, ...given } of answered) {
      await rowsOf(
        this.manager,
        `UPDATE execution_waits SET answers = answers || jsonb_build_array($3::jsonb)
          WHERE execution_id = $1 AND wait_id = $2 AND NOT answers @> jsonb_build_array(jsonb_build_object('by', $4::text))`,
        [executionId, waitId, JSON.stringify(given), given.by],
      );
    }
  }

  /**
   * The open declared-answer wait of an execution on this signal name (the oldest), with the workflow's NRN and
   * the run's starter: what the approval gate decides on. Undefined when the name has no declared-answer wait.
   */
  async answerWaitOf(executionId: string, name: string): Promise<AnswerWait | undefined> {
    const [row] = await rowsOf<AnswerWait>(
      this.manager,
      `SELECT ${selectColumns(this.manager, ExecutionWaitEntity, 'w')}, wf.nrn AS "workflowNrn", e.created_by AS "startedBy",
              e.status AS "executionStatus"
         FROM execution_waits w JOIN executions e ON e.id = w.execution_id LEFT JOIN workflows wf ON wf.id = e.workflow_id
        WHERE w.execution_id = $1 AND $2 = ANY (w.signal_names) AND w.answer IS NOT NULL
        ORDER BY w.since, w.wait_id LIMIT 1`,
      [executionId, name],
    );
    return row;
  }

  /**
   * The approvals inbox: the open declared-answer waits the caller may answer now, oldest first, one page and the
   * total, in one statement (the caller's grants are read inside it; see ./answerable-waits.ts).
   */
  async answerableBy(filter: AnswerableFilter): Promise<{ total: number; rows: InboxWait[] }> {
    return pageOf<InboxWait>(this.manager, {
      matching: answerableSql(selectColumns(this.manager, ExecutionWaitEntity, 'w'), filter),
      orderBy: 'since, "executionId", "waitId"',
      offset: filter.offset,
      limit: filter.limit,
      key: 'waitId',
    });
  }

  async closeAll(executionId: string, waitIds: string[]): Promise<void> {
    if (waitIds.length === 0) return;
    await this.delete({ executionId, waitId: In(waitIds) });
  }

  /**
   * Running executions of an organization with an open wait on `signalName` under
   * `correlationKey`, oldest wait first (at most 20).
   */
  async findCorrelated(
    organizationId: string,
    signalName: string,
    correlationKey: string,
    workflowId?: string,
  ): Promise<Array<Pick<ExecutionEntity, 'id' | 'temporalRunId'>>> {
    return rowsOf(
      this.manager,
      `SELECT DISTINCT ON (w.since, e.id) e.id, e.temporal_run_id AS "temporalRunId"
       FROM execution_waits w JOIN executions e ON e.id = w.execution_id
       WHERE w.correlation_key = $1 AND $2 = ANY(w.signal_names) AND e.organization_id = $3 AND e.status IN ('running', 'waiting')
         AND ($4::text IS NULL OR e.workflow_id = $4)
       ORDER BY w.since, e.id LIMIT 20`,
      [correlationKey, signalName, organizationId, workflowId ?? null],
    );
  }
}
