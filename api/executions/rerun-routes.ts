/**
 * POST /workflows/executions/{id}/rerun and …/retry: a new execution of the same revision with the same inputs,
 * linked to the first (executions/rerun-execution.ts). A retry starts only from a failed execution and reuses
 * the steps that completed in it; a re-run runs every step again.
 */
import { ExecutionNotRetryable, RetryTooLarge, RevisionNotRunnable, rerunExecution } from '../../executions';
import type { RerunKind } from '../../db/entities/execution';
import { recordRerun } from '../audit/execution-start';
import { HttpError } from '../http/errors';
import { defineRoute, type RouteDefinition } from '../http/route';
import type { ExecutionDeps } from './deps';
import { asProblem } from './errors';
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
            status: 'running',
          },
        };
      },
    }),
  );
}

function rerunProblem(error: unknown): never {
  if (error instanceof ExecutionNotRetryable)
    throw new HttpError(
      409,
      'execution-not-retryable',
      `Execution "${error.executionId}" is ${error.status}: only a failed execution can be retried from its failed step.`,
    );
  if (error instanceof RetryTooLarge)
    throw new HttpError(
      409,
      'retry-too-large',
      `The completed steps of execution "${error.executionId}" recorded ${error.bytes} bytes of outputs; a retry carries at most ${error.limit} (Temporal refuses larger inputs). Re-run it instead.`,
    );
  if (error instanceof RevisionNotRunnable)
    throw new HttpError(404, error.miss, `The workflow revision execution ran no longer exists (${error.miss}); it cannot run again.`);
  return asProblem(error);
}
