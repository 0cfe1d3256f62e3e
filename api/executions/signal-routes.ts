/**
 * Signal delivery. Each delivery is a Temporal update whose validator rejects
 * atomically when nothing waits on the name (so two deliveries for one wait
 * give one 200 and one 409), and every "not waiting" outcome answers 409:
 * update rejected, execution finished, or unknown to Temporal. An optional
 * idempotencyKey makes a delivery happen once (idempotent-signal.ts);
 * signal-with-start starts an execution of `workflowId` when none waits, as the
 * compatible engine does (`startIfNotWaiting: false` keeps the 409).
 */
import { Type } from '@sinclair/typebox';
import type { WorkflowEntity } from '../../db/entities/workflow';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { deliver, deliverByCorrelation } from '../../executions';
import { defineRoute, type RouteDefinition } from '../http/route';
import { authorize } from '../access/access';
import { organizationNrn } from '../access/nrn';
import { authorizeInOrganization } from '../access/engine-access';
import { workflowNrn } from '../access/workflow-reach';
import { organizationNotFound } from '../workflows/errors';
import type { ExecutionDeps } from './deps';
import { asProblem, notWaiting, startNeedsWorkflow } from './errors';
import { deliverOnce } from './idempotent-signal';
import { isFinished } from './live';
import { answerEvent, deliverGated, gatedExecution } from './approval-gate';
import { startForSignal } from './signal-start';
import { CorrelatedSignalBody, CorrelatedSignalResult, SignalParams, SignalPayload, SignalQuery, SignalResult } from './schemas';

const tags = ['Workflow signals'];

export function signalRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/workflows/executions/{id}/signals/{name}',
      operationId: 'signalExecution',
      summary: 'Deliver a signal to an execution waiting on it',
      description:
        'The body is passed verbatim as the signal payload. 409 when the execution is not waiting on that signal name. With `idempotencyKey`, a repeat delivers nothing and answers 200 with the first signalId (and deduplicated: true). A wait that declares its answer (`approvers`, `form`, `excludeStarter`, `required`) is answered only by its approvers (403 otherwise, nothing recorded), with a payload its form accepts (422 with the failing paths), once per user (409 `already-answered`); the answer then reports `released`, `approvals` and `required`.',
      tags,
      access: {
        permission: 'execution:signal',
        inHandler: 'the execution, unless an open wait on the name declares who may answer it (./approval-gate.ts)',
      },
      audit: { action: 'execution.signal' },
      params: SignalParams,
      query: SignalQuery,
      body: SignalPayload,
      bodyOptional: true,
      errors: [403, 409, 422, 503],
      responses: { 200: { description: 'Delivered', schema: SignalResult } },
      async handler({ params, query, body, auth, permission, audit }) {
        // A declared-answer wait on the name: who may answer and what are checked first (./approval-gate.ts).
        const { row, nrn, gate } = await gatedExecution(deps, auth, params.id, params.name, permission, body);
        let counted: { released: boolean; approvals: number } | undefined;
        const answer = await deliverOnce(
          deps,
          { organizationId: auth.organizationId, idempotencyKey: query.idempotencyKey, target: `execution:${row.id}:${params.name}` },
          async (signalId) => {
            if (isFinished(row)) throw notWaiting(params.name);
            // The payload is the caller's data: the event names the signal, never what it carried.
            const event = { nrn, id: row.id, details: { name: params.name, signalId, idempotencyKey: query.idempotencyKey } };
            if (gate) {
              counted = await audit.around(
                deps.dataSource.manager,
                answerEvent(event, gate, body),
                () => deliverGated(deps, row, params.name, body, signalId, gate),
                (counted) => ({ released: counted.released, approvals: counted.approvals }),
              );
              return { signalId, executionId: row.id, started: false };
            }
            await audit.around(deps.dataSource.manager, event, async () => {
              const outcome = await deliver(deps.temporal, row.id, row.temporalRunId, {
                name: params.name,
                payload: body ?? {},
                signalId,
              }).catch(asProblem);
              if (outcome === 'not-waiting') throw notWaiting(params.name);
            });
            return { signalId, executionId: row.id, started: false };
          },
        );
        return {
          status: 200,
          body: {
            delivered: true,
            signalId: answer.signalId,
            ...(answer.deduplicated ? { deduplicated: true } : {}),
            ...(counted ? { released: counted.released, approvals: counted.approvals, required: gate!.required } : {}),
          },
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/signals/{name}',
      operationId: 'signalByCorrelationKey',
      summary: 'Deliver a signal to the execution waiting on it under a correlation key',
      description:
        'Releases the oldest open wait declared with this signal name and correlation key (optionally within one workflow). When none waits and the body names `workflowId`, an execution of it is started whose first wait on this name and key receives the payload (signal-with-start; needs workflow:execute too); `startIfNotWaiting: false`, or no `workflowId`, answers 409 instead. With `idempotencyKey`, a repeat delivers (and starts) nothing and answers as the first did.',
      tags,
      access: { permission: 'execution:signal', inHandler: 'the workflow the body names, else the organization' },
      audit: { action: 'execution.signal' },
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: CorrelatedSignalBody,
      errors: [400, 403, 404, 409, 503],
      responses: { 200: { description: 'Delivered', schema: CorrelatedSignalResult } },
      async handler({ params, body, auth, permission, audit }) {
        if (body.startIfNotWaiting === true && body.workflowId === undefined) throw startNeedsWorkflow();
        // Narrowed to one workflow: its NRN guards the delivery; else any waiting execution of the organization may receive it.
        let workflow: WorkflowEntity | undefined;
        if (body.workflowId !== undefined) {
          workflow = await new WorkflowRepository(deps.dataSource.manager).findByRef(auth.organizationId, body.workflowId);
          if (workflow === undefined) {
            await authorizeInOrganization(deps.dataSource, auth, permission);
            throw notWaiting(params.name);
          }
          await authorize(deps.dataSource, auth, permission, workflowNrn(workflow), () => organizationNotFound(auth.organizationId));
        } else {
          await authorizeInOrganization(deps.dataSource, auth, permission);
        }
        const target = `correlated:${params.name}:${workflow?.id ?? '*'}:${body.correlationKey}`;
        const answer = await deliverOnce(
          deps,
          { organizationId: auth.organizationId, idempotencyKey: body.idempotencyKey, target },
          async (signalId) => {
            const event = {
              nrn: workflow ? workflowNrn(workflow) : organizationNrn(auth.organizationId),
              id: null,
              details: {
                name: params.name,
                correlationKey: body.correlationKey,
                signalId,
                idempotencyKey: body.idempotencyKey,
                ...(workflow ? { workflowId: workflow.id } : {}),
              },
            };
            const deliverOrStart = async () => {
              const delivered = await deliverByCorrelation(deps, {
                organizationId: auth.organizationId,
                name: params.name,
                correlationKey: body.correlationKey,
                payload: body.payload ?? {},
                signalId,
                workflowId: workflow?.id,
              }).catch(asProblem);
              if (delivered) return { signalId, executionId: delivered.executionId, started: false };
              // Signal-with-start unless the caller said not to: `startIfNotWaiting: false` keeps the 409 as information.
              if (body.startIfNotWaiting === false || workflow === undefined) throw notWaiting(params.name);
              const executionId = await startForSignal(deps, auth, workflow, {
                name: params.name,
                signalId,
                correlationKey: body.correlationKey,
                payload: body.payload ?? {},
                inputs: body.inputs ?? {},
                alias: body.alias,
                idempotencyKey: body.idempotencyKey,
              });
              return { signalId, executionId, started: true };
            };
            return audit.around(deps.dataSource.manager, event, deliverOrStart, (answer) => ({
              executionId: answer.executionId,
              started: answer.started,
            }));
          },
        );
        return {
          status: 200,
          body: {
            delivered: true,
            signalId: answer.signalId,
            executionId: answer.executionId,
            started: answer.started,
            ...(answer.deduplicated ? { deduplicated: true } : {}),
          },
        };
      },
    }),
  ];
}
