/**
 * The statement of the approvals inbox (GET /workflows/approvals): the open declared-answer waits a caller may
 * answer, one page and the total, with the caller's grants read inside it. The rule is the approval gate's
 * (api/executions/approval-gate.ts), said in SQL:
 *
 * - the run is open and of the caller's organization; the caller has not answered the wait yet;
 * - `excludeStarter`: the caller did not start the run;
 * - `approvers` declared: the caller is one of `users`, or holds one of `roles` on an NRN that contains the
 *   target (`approvers.nrn`, else the workflow's NRN), the target being a concrete NRN inside the workflow's;
 * - no `approvers`: the caller may signal the run (`execution:signal` on the workflow's NRN), as for a plain wait.
 *
 * NRN containment is api/access/nrn.ts `nrnContains` on the texts: every `level=id` of the outer NRN is in the
 * inner one, or its id is `*` and the inner one names that level.
 */

/** The NRN pattern the target must match (api/access/nrn.ts NRN_PATTERN, passed in: db imports nothing of the API). */
export interface AnswerableFilter {
  organizationId: string;
  userId: string;
  userType: string;
  workflowId?: string;
  /** One run's waits (the console's answer page). */
  executionId?: string;
  /** Waiting since at or after / before (ISO-8601). */
  from?: string;
  to?: string;
  offset: number;
  limit: number;
  nrnPattern: string;
}

/** SQL: whether NRN text `outer` contains NRN text `inner`. */
export function nrnContainsSql(outer: string, inner: string): string {
  return `NOT EXISTS (SELECT 1 FROM unnest(string_to_array(${outer}, ':')) AS s(seg)
                       WHERE NOT ((':' || ${inner} || ':') LIKE ('%:' || s.seg || ':%')
                                  OR (split_part(s.seg, '=', 2) = '*' AND (':' || ${inner}) LIKE ('%:' || split_part(s.seg, '=', 1) || '=%'))))`;
}

export function answerableSql(waitColumns: string, filter: AnswerableFilter): { sql: string; params: unknown[] } {
  const workflowNrn = `coalesce(wf.nrn, 'organization=' || e.organization_id)`;
  const target = `coalesce(w.answer->'approvers'->>'nrn', ${workflowNrn})`;
  const sql = `
    WITH caller AS (
      SELECT g.nrn, r.slug, r.permissions
        FROM users u
        JOIN grants g ON g.organization_id = u.organization_id AND g.user_id = u.id
        JOIN roles r ON r.id = g.role_id
       WHERE u.organization_id = $1::text::bigint AND u.id = $2::text::bigint AND u.type = $3::text AND g.status = 'active' AND u.type = ANY (r.user_types)
    ), matching AS (
      SELECT ${waitColumns}, e.workflow_id AS "workflowId", wf.key AS "workflowKey", wf.name AS "workflowName",
             e.created_by AS "startedBy", e.inputs AS "inputs"
        FROM execution_waits w
        JOIN executions e ON e.id = w.execution_id
        LEFT JOIN workflows wf ON wf.id = e.workflow_id
       WHERE w.answer IS NOT NULL AND e.organization_id = $1::text AND e.status IN ('running', 'waiting')
         AND ($4::text IS NULL OR e.workflow_id = $4 OR wf.key = $4) AND ($10::text IS NULL OR e.id = $10)
         AND ($5::timestamptz IS NULL OR w.since >= $5) AND ($6::timestamptz IS NULL OR w.since < $6)
         AND NOT (w.answer->>'excludeStarter' = 'true' AND e.created_by = $2::text)
         AND NOT w.answers @> jsonb_build_array(jsonb_build_object('by', $2::text))
         AND CASE WHEN w.answer ? 'approvers' THEN
               coalesce(w.answer->'approvers'->'users', '[]'::jsonb) ? $2::text
               OR (${target} ~ $9 AND position('*' IN ${target}) = 0 AND ${nrnContainsSql(workflowNrn, target)}
                   AND EXISTS (SELECT 1 FROM caller c
                                WHERE coalesce(w.answer->'approvers'->'roles', '[]'::jsonb) ? c.slug
                                  AND ${nrnContainsSql('c.nrn', target)}))
             ELSE EXISTS (SELECT 1 FROM caller c
                           WHERE c.permissions && ARRAY['*', 'execution:*', '*:signal', 'execution:signal']::text[]
                             AND ${nrnContainsSql('c.nrn', workflowNrn)})
             END
    )
    SELECT page.*, total.n AS "__total"
      FROM (SELECT count(*)::float8 AS n FROM matching) total
      LEFT JOIN LATERAL (SELECT * FROM matching ORDER BY since, "executionId", "waitId" OFFSET $7 LIMIT $8) page ON true
     ORDER BY since, "executionId", "waitId"`;
  const params = [
    filter.organizationId,
    filter.userId,
    filter.userType,
    filter.workflowId ?? null,
    filter.from ?? null,
    filter.to ?? null,
    filter.offset,
    filter.limit,
    filter.nrnPattern,
    filter.executionId ?? null,
  ];
  return { sql, params };
}
