/**
 * The approvals inbox (issue 42): `GET /workflows/approvals` lists the open waits with a declared answer that
 * the caller may answer now, oldest first, in one statement on PostgreSQL (no Temporal query): the rule is the
 * approval gate's (./approval-gate.ts), in SQL (db/repositories/answerable-waits.ts). Every caller may ask:
 * the list is what the caller's grants (or a wait's `approvers.users`) make answerable, and empty otherwise.
 */
import { Type, type Static } from '@sinclair/typebox';
import { ExecutionWaitRepository, type InboxWait } from '../../db/repositories/execution-wait-repository';
import { NRN_PATTERN } from '../access/nrn';
import { defineRoute, type RouteDefinition } from '../http/route';
import { Paging, page } from '../workflows/schemas';
import type { ExecutionDeps } from './deps';

const tags = ['Workflow signals'];

export const ApprovalQuery = Type.Object({
  workflowId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Workflow id (wf_…) or key' })),
  executionId: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "one run's waits (the console's answer page)" })),
  from: Type.Optional(Type.String({ format: 'date-time', description: 'waiting since at or after' })),
  to: Type.Optional(Type.String({ format: 'date-time', description: 'waiting since before' })),
  ...Paging,
});

const Answer = Type.Object({ by: Type.String(), at: Type.String(), approved: Type.Boolean() });

export const ApprovalWait = Type.Object({
  executionId: Type.String(),
  waitId: Type.String(),
  stepId: Type.String(),
  signalName: Type.String({ description: 'the name to answer with: POST /workflows/executions/{executionId}/signals/{signalName}' }),
  workflow: Type.Object({
    id: Type.String(),
    key: Type.Union([Type.String(), Type.Null()]),
    name: Type.Union([Type.String(), Type.Null()]),
  }),
  title: Type.Union([Type.String(), Type.Null()]),
  description: Type.Union([Type.String(), Type.Null()], { description: 'as the run rendered it (text)' }),
  form: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: 'the JSON Schema of the answer' }),
  required: Type.Integer({ description: 'distinct approvals needed' }),
  excludeStarter: Type.Boolean(),
  answers: Type.Array(Answer, { description: 'answers counted so far (never the caller’s: the caller has not answered)' }),
  startedBy: Type.Union([Type.String(), Type.Null()]),
  inputs: Type.Object({}, { additionalProperties: true, description: "the run's inputs: the context of the question" }),
  since: Type.String({ format: 'date-time' }),
  timeoutAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  answerUrl: Type.String({ description: "the console's answer page" }),
});

export function approvalRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/workflows/approvals',
      operationId: 'listApprovals',
      summary: 'List the waits the caller may answer, oldest first',
      description:
        'Open waits that declare their answer (signal-wait `approvers`, `form`, …) which the caller may answer now: an approver by role or user id, not the run’s starter under `excludeStarter`, not answered by the caller yet. Read from PostgreSQL in one statement. Filter by workflow and by how long the run has waited (`from`, `to` on the wait’s start).',
      tags,
      // Everyone may ask; what is listed is what the caller may answer (nothing, without grants or a listing by id).
      access: {
        permission: 'execution:signal',
        inHandler: 'no check: the listing is the waits the caller may answer, decided in its statement',
      },
      query: ApprovalQuery,
      responses: { 200: { description: 'A page of waits', schema: page(ApprovalWait) } },
      async handler({ query, auth }) {
        const limit = query.limit ?? 50;
        const pageNumber = query.page ?? 1;
        const { total, rows } = await new ExecutionWaitRepository(deps.dataSource.manager).answerableBy({
          organizationId: auth.organizationId,
          userId: auth.userId,
          userType: auth.userType,
          workflowId: query.workflowId,
          executionId: query.executionId,
          from: query.from,
          to: query.to,
          offset: (pageNumber - 1) * limit,
          limit,
          nrnPattern: NRN_PATTERN,
        });
        return { status: 200, body: { data: rows.map((row) => serializeApproval(deps, row)), page: pageNumber, limit, total } };
      },
    }),
  ];
}

function serializeApproval(deps: ExecutionDeps, row: InboxWait): Static<typeof ApprovalWait> {
  const answer = row.answer!;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  return {
    executionId: row.executionId,
    waitId: row.waitId,
    stepId: row.stepId,
    signalName: row.signalNames[0] ?? '',
    workflow: { id: row.workflowId, key: row.workflowKey, name: row.workflowName },
    title: answer.title ?? null,
    description: answer.description ?? null,
    form: answer.form ?? null,
    required: answer.required,
    excludeStarter: answer.excludeStarter,
    answers: row.answers.map(({ by, at, approved }) => ({ by, at, approved })),
    startedBy: row.startedBy,
    inputs: row.inputs,
    since: new Date(row.since).toISOString(),
    timeoutAt: row.timeoutAt ? new Date(row.timeoutAt).toISOString() : null,
    answerUrl: `${base}/console/approvals/${encodeURIComponent(row.executionId)}/${encodeURIComponent(row.waitId)}`,
  };
}
