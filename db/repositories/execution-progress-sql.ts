/**
 * What a batch of the workflow writes on its execution's row (its variables, whether it waits), as SQL
 * that is also a part of a step batch's single statement (step-batch-statement.ts) and of
 * ExecutionRepository.recordProgress.
 */

/** What the workflow reports of its run with a batch, when it changed since the previous batch. */
export interface RunProgress {
  variables?: Record<string, unknown>;
  /** Every step still running is parked on an open wait. */
  waiting?: boolean;
}

/** The parameters of `recordProgressSql` for a run's progress, named by `param`. */
export function progressParams(
  progress: RunProgress,
  param: (value: unknown) => string,
): { variablesParam?: string; waitingParam?: string } {
  return {
    ...(progress.variables !== undefined ? { variablesParam: param(JSON.stringify(progress.variables)) } : {}),
    ...(progress.waiting !== undefined ? { waitingParam: param(progress.waiting) } : {}),
  };
}

/**
 * What a batch writes on the execution's row, as SQL (also a part of a step batch's single statement): the
 * run's variables and whether it waits (the workflow decides: every step still running is parked on a
 * wait), each when it changed. One UPDATE, as a statement must not update a row twice. A finished
 * execution is left as it is.
 */
export function recordProgressSql(executionIdParam: string, params: { variablesParam?: string; waitingParam?: string }): string {
  const sets = [
    ...(params.variablesParam !== undefined ? [`variables = ${params.variablesParam}::jsonb`] : []),
    ...(params.waitingParam !== undefined
      ? [`status = CASE WHEN ${params.waitingParam}::boolean THEN 'waiting' ELSE 'running' END`, 'updated_at = now()']
      : []),
  ];
  return `UPDATE executions SET ${sets.join(', ')} WHERE id = ${executionIdParam} AND status IN ('running', 'waiting')`;
}
