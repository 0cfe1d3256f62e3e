/**
 * POST /workflows/executions/{id}/rerun and …/retry: a new execution of the same revision with the same inputs,
 * linked to the first (executions/rerun-execution.ts). A retry starts only from a failed execution and reuses
 * the steps that completed in it; a re-run runs every step again.
 */
import { ExecutionNotRetryable, RetryTooLarge, RevisionNotRunnable, rerunExecution } from '../../executions';
import type { RerunKind } from '../../db/entities/execution';
import { recordRerun } from '../audit/execution-start';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { asProblem, executionNotRetryable, retryTooLarge, revisionGone } from './errors';
import { ExecuteResult, ExecutionRef } from './schemas';

const tags = ['Workflow executions'];

const described: Record<RerunKind, { operationId: string; summary: string; description: string }> = {
  rerun: {
    operationId: 'rerunExecution',
    summary: 'Run an execution again: a new execution with the same inputs',
    description:
      'Starts a new execution of the same workflow revision as the first (not the revision an alias names now) with the same inputs and trigger payload; every step runs again. The new execution shows `rerunOf` and `rerunKind: rerun`. Needs workflow:execute on the workflow (and read on the execution).',
  },
  retry: {
    operationId: 'retryExecution',
    summary: 'Retry a failed execution from its failed step',
    description:
      'Only for a failed execution (409 otherwise). Starts a new execution of the same revision with the same inputs in which every step that completed in the failed one (and ran once) is not run again: its recorded outputs are reused (its step record says `reusedFrom`), so the run starts at the failed step(s) and whatever depends on them. Steps that set run variables run again, so the variables are rebuilt as the failed run built them. The new execution shows `rerunOf` and `rerunKind: retry`.',
  },
};

export function rerunRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return (['rerun', 'retry'] as const).map((kind) =>
    defineRoute({
      method: 'post',
      path: `/workflows/executions/{id}/${kind}`,
      ...described[kind],
      tags,
      // Read on the execution (else not found), then execute on its workflow (else forbidden).
      access: { permission: 'workflow:execute', on: 'execution', also: ['workflow:read'] },
      audit: { action: 'execution.start' },
      params: ExecutionRef,
      responses: { 202: { description: 'Started', schema: ExecuteResult } },
      errors: [404, 409, 503],
      async handler({ auth, audit, target: { row, nrn } }) {
        const started = await rerunExecution(deps, {
          original: row,
          kind,
          createdBy: auth.userId,
          audit: recordRerun(audit, nrn, kind, row.id),
        }).catch(rerunProblem);
        return {
          status: 202,
          body: {
            executionId: started.id,
            workflowId: started.workflowId,
            revision: started.revision,
            alias: started.alias,
            // `queued` when flow control holds it (executions/flow/).
            status: started.status,
          },
        };
      },
    }),
  );
}

function rerunProblem(error: unknown): never {
  if (error instanceof ExecutionNotRetryable) throw executionNotRetryable(error.executionId, error.status);
  if (error instanceof RetryTooLarge) throw retryTooLarge(error.executionId, error.bytes, error.limit);
  if (error instanceof RevisionNotRunnable) throw revisionGone(error.miss);
  return asProblem(error);
}
