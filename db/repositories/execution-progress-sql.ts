/**
 * What a batch of the workflow writes on its execution's row (its variables, whether it waits), as SQL
 * that is also a part of a step batch's single statement (step-batch-statement.ts) and of
 * ExecutionRepository.recordProgress.
 */
import { join, raw, sql, type Sql } from '../sql-builder';

/** What the workflow reports of its run with a batch, when it changed since the previous batch. */
export interface RunProgress {
  variables?: Record<string, unknown>;
  /** Every step still running is parked on an open wait. */
  waiting?: boolean;
}

/**
 * What a batch writes on the execution's row, as SQL (also a part of a step batch's single statement): the
 * run's variables and whether it waits (the workflow decides: every step still running is parked on a
 * wait), each when it changed. One UPDATE, as a statement must not update a row twice. A finished
 * execution is left as it is.
 */
export function recordProgressSql(executionId: unknown, progress: RunProgress): Sql {
  const sets = [
    ...(progress.variables !== undefined ? [sql`variables = ${JSON.stringify(progress.variables)}::jsonb`] : []),
    ...(progress.waiting !== undefined
      ? [sql`status = CASE WHEN ${progress.waiting}::boolean THEN 'waiting' ELSE 'running' END`, raw('updated_at = now()')]
      : []),
  ];
  return sql`UPDATE executions SET ${join(sets, ', ')} WHERE id = ${executionId} AND status IN ('running', 'waiting')`;
}
