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

import { bind, raw, sql, type Sql } from '../sql-builder';

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

/** The waits the caller may answer (the candidate rows of the inbox's page: ExecutionWaitRepository.answerableBy). */
export function answerableSql(waitColumns: string, filter: AnswerableFilter): Sql {
  const workflowNrn = `coalesce(wf.nrn, 'organization=' || e.organization_id)`;
  const target = `coalesce(w.answer->'approvers'->>'nrn', ${workflowNrn})`;
  const [organizationId, userId, workflowId, executionId, from, to] = [
    bind(filter.organizationId),
    bind(filter.userId),
    bind(filter.workflowId ?? null),
    bind(filter.executionId ?? null),
    bind(filter.from ?? null),
    bind(filter.to ?? null),
  ];
  return sql`
    WITH caller AS (
      SELECT g.nrn, r.slug, r.permissions
        FROM users u
        JOIN grants g ON g.organization_id = u.organization_id AND g.user_id = u.id
        JOIN roles r ON r.id = g.role_id
       WHERE u.organization_id = ${organizationId}::text::bigint AND u.id = ${userId}::text::bigint AND u.type = ${filter.userType}::text
         AND g.status = 'active' AND u.type = ANY (r.user_types)
    )
      SELECT ${raw(waitColumns)}, e.workflow_id AS "workflowId", wf.key AS "workflowKey", wf.name AS "workflowName",
             e.created_by AS "startedBy", e.inputs AS "inputs"
        FROM execution_waits w
        JOIN executions e ON e.id = w.execution_id
        LEFT JOIN workflows wf ON wf.id = e.workflow_id
       WHERE w.answer IS NOT NULL AND e.organization_id = ${organizationId}::text AND e.status IN ('running', 'waiting')
         AND (${workflowId}::text IS NULL OR e.workflow_id = ${workflowId} OR wf.key = ${workflowId})
         AND (${executionId}::text IS NULL OR e.id = ${executionId})
         AND (${from}::timestamptz IS NULL OR w.since >= ${from}) AND (${to}::timestamptz IS NULL OR w.since < ${to})
         AND NOT (w.answer->>'excludeStarter' = 'true' AND e.created_by = ${userId}::text)
         AND NOT w.answers @> jsonb_build_array(jsonb_build_object('by', ${userId}::text))
         AND CASE WHEN w.answer ? 'approvers' THEN
               coalesce(w.answer->'approvers'->'users', '[]'::jsonb) ? ${userId}::text
               OR (${raw(target)} ~ ${filter.nrnPattern} AND position('*' IN ${raw(target)}) = 0 AND ${raw(nrnContainsSql(workflowNrn, target))}
                   AND EXISTS (SELECT 1 FROM caller c
                                WHERE coalesce(w.answer->'approvers'->'roles', '[]'::jsonb) ? c.slug
                                  AND ${raw(nrnContainsSql('c.nrn', target))}))
             ELSE EXISTS (SELECT 1 FROM caller c
                           WHERE c.permissions && ARRAY['*', 'execution:*', '*:signal', 'execution:signal']::text[]
                             AND ${raw(nrnContainsSql('c.nrn', workflowNrn))})
             END`;
}
