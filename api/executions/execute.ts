/**
 * POST /workflows/definitions/{id}/execute: resolve the revision, check the
 * inputs, then start the execution (executions/: idempotent record, Temporal
 * start, nothing half-written on failure). Which trigger fires is
 * workflows/engine/hand-run.ts's rule (docs/api.md, "Running by hand").
 */
import { Type } from '@sinclair/typebox';
import {
  checkInputs,
  handRunInputs,
  handRunPayload,
  handRunTrigger,
  type TriggerInfo,
  type TriggerStep,
  type WorkflowDefinition,
} from '../../workflows/engine';
import { startExecution } from '../../executions';
import { defineRoute, type RouteDefinition } from '../http/route';
import { authorizedRunnable } from '../access/engine-access';
import { WorkflowRef } from '../workflows/schemas';
import type { ExecutionDeps } from './deps';
import { declaredInputs, inputSchemaErrors, payloadSchemaErrors } from '../workflows/declared-schemas';
import { recordStart } from '../audit/execution-start';
import { asProblem, triggerRequired, unknownTrigger, inputsInvalid } from './errors';
import { ExecuteBody, ExecuteResult, RevisionChoice } from './schemas';
import { startAliasNotFound, startRevisionNotFound } from '../workflows/errors';

const tags = ['Workflow executions'];

export function executeRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/workflows/definitions/{id}/execute',
      operationId: 'executeWorkflow',
      summary: 'Start an execution of a workflow revision',
      description:
        'alias/revision may come in the body or the query (the body wins); an explicit revision wins over an alias; default alias latest. A repeated idempotencyKey answers 200 with the same execution and deduplicated: true.',
      tags,
      access: {
        permission: 'workflow:execute',
        inHandler: 'the workflow and the revision its alias or revision choice names, read with the grants in one statement',
      },
      audit: { action: 'execution.start' },
      params: WorkflowRef,
      query: Type.Object(RevisionChoice),
      body: ExecuteBody,
      bodyOptional: true,
      responses: {
        202: { description: 'Started', schema: ExecuteResult },
        200: { description: 'Deduplicated by idempotencyKey', schema: ExecuteResult },
      },
      errors: [404, 409, 429, 503],
      async handler({ params, query, body, auth, permission, audit }) {
        const request = body ?? {};
        const alias = request.alias ?? query.alias;
        const revision = request.revision ?? query.revision;
        const runnable = await authorizedRunnable(deps.dataSource, auth, params.id, permission, { alias, revision });
        if (runnable === 'alias-not-found') throw startAliasNotFound(params.id, alias ?? 'latest');
        if (runnable === 'revision-not-found') throw startRevisionNotFound(params.id, revision);

        const inputs = request.inputs ?? {};
        const fired = firedTrigger(runnable.definition, params.id, request.triggerId);
        checkHandRunInputs(runnable.definition, fired, inputs);

        const now = new Date();
        const payload = handRunPayload(runnable.definition, fired, inputs, now);
        const triggerInfo: TriggerInfo = { stepId: fired?.id, source: 'manual', payload, receivedAt: now.toISOString() };
        const { row, created, merged } = await startExecution(deps, {
          organizationId: auth.organizationId,
          runnable,
          inputs: handRunInputs(fired, payload, inputs),
          trigger: triggerInfo,
          correlationKey: request.correlationKey,
          idempotencyKey: request.idempotencyKey,
          createdBy: auth.userId,
          audit: recordStart(audit, runnable.workflow, 'manual'),
        }).catch(asProblem);
        const result = { executionId: row.id, workflowId: row.workflowId, revision: row.revision, alias: row.alias };
        // A debounced start answers with the one run its burst becomes (executions/flow/).
        if (merged) return { status: 202, body: { ...result, status: row.status, debounced: true as const } };
        if (!created) return { status: 200, body: { ...result, status: row.status, deduplicated: true } };
        // `queued` when flow control holds it (a concurrency slot, a throttle's or debounce's time).
        return { status: 202, body: { ...result, status: row.status } };
      },
    }),
  ];
}

/** Refuses inputs a hand-run (execute, signal-with-start) may not start with: 400 `inputs-invalid`, naming each problem. */
export function checkHandRunInputs(definition: WorkflowDefinition, fired: TriggerStep | undefined, inputs: Record<string, unknown>): void {
  const declared = Object.fromEntries(declaredInputs(definition).map(({ name, spec }) => [name, spec]));
  const errors = [...checkInputs(declared, inputs), ...inputSchemaErrors(definition, inputs)];
  // A webhook trigger run now gets the inputs as its request body: they meet its payloadSchema like a request's body.
  if (fired?.pluginType === 'webhook') errors.push(...payloadSchemaErrors(definition, fired.id, inputs));
  if (errors.length > 0) throw inputsInvalid(errors);
}

/** The trigger step this start fires (undefined: the revision has none); refuses a start that names none of several. */
export function firedTrigger(definition: WorkflowDefinition, workflowId: string, triggerId?: string): TriggerStep | undefined {
  const handRun = handRunTrigger(definition, triggerId);
  if (handRun.ok) return handRun.step;
  if (handRun.reason === 'unknown') throw unknownTrigger(workflowId, String(triggerId), handRun.triggers);
  throw triggerRequired(workflowId, handRun.triggers);
}
