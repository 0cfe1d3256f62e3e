/**
 * Signal delivery. Each delivery is a Temporal update whose validator rejects
 * atomically when nothing waits on the name (so two deliveries for one wait
 * give one 200 and one 409), and every "not waiting" outcome answers 409:
 * update rejected, execution finished, or unknown to Temporal.
 */
import { Type } from '@sinclair/typebox';
import { WorkflowRepository } from '../../db/repositories/workflow-repository';
import { deliver, deliverByCorrelation } from '../../executions';
import { defineRoute, type RouteDefinition } from '../http/route';
import { authorize } from '../access/access';
import { authorizeInOrganization, organizationNotFound, workflowNrn } from '../workflows/authorize';
import type { ExecutionDeps } from './deps';
import { asProblem, notWaiting } from './errors';
import { newSignalId } from './ids';
import { isFinished, authorizedExecution } from './live';
import { CorrelatedSignalBody, SignalParams, SignalPayload, SignalResult } from './schemas';

const tags = ['Workflow signals'];

export function signalRoutes(deps: ExecutionDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/workflows/executions/{id}/signals/{name}',
      operationId: 'signalExecution',
      summary: 'Deliver a signal to an execution waiting on it',
      description: 'The body is passed verbatim as the signal payload. 409 when the execution is not waiting on that signal name.',
      tags,
      access: { permission: 'execution:signal' },
      params: SignalParams,
      body: SignalPayload,
      bodyOptional: true,
      errors: [409, 503],
      responses: { 200: { description: 'Delivered', schema: SignalResult } },
      async handler({ params, body, auth, permission }) {
        const row = await authorizedExecution(deps, auth, params.id, permission);
        if (isFinished(row)) throw notWaiting(params.name);
        const signalId = newSignalId();
        const outcome = await deliver(deps.temporal, row.id, row.temporalRunId, { name: params.name, payload: body ?? {}, signalId }).catch(
          asProblem,
        );
        if (outcome === 'not-waiting') throw notWaiting(params.name);
        return { status: 200, body: { delivered: true, signalId } };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/workflows/signals/{name}',
      operationId: 'signalByCorrelationKey',
      summary: 'Deliver a signal to the execution waiting on it under a correlation key',
      description:
        'Releases the oldest open wait declared with this signal name and correlation key (optionally within one workflow); 409 when none waits.',
      tags,
      access: { permission: 'execution:signal' },
      params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
      body: CorrelatedSignalBody,
      errors: [409, 503],
      responses: {
        200: {
          description: 'Delivered',
          schema: Type.Object({ delivered: Type.Literal(true), signalId: Type.String(), executionId: Type.String() }),
        },
      },
      async handler({ params, body, auth, permission }) {
        // Narrowed to one workflow: its NRN guards the delivery; else any waiting execution of the organization may receive it.
        let workflowId: string | undefined;
        if (body.workflowId !== undefined) {
          const workflow = await new WorkflowRepository(deps.dataSource.manager).findByRef(auth.organizationId, body.workflowId);
          if (workflow === undefined) {
            await authorizeInOrganization(deps.dataSource, auth, permission);
            throw notWaiting(params.name);
          }
          await authorize(deps.dataSource, auth, permission, workflowNrn(workflow), organizationNotFound(auth.organizationId));
          workflowId = workflow.id;
        } else {
          await authorizeInOrganization(deps.dataSource, auth, permission);
        }
        const signalId = newSignalId();
        const delivered = await deliverByCorrelation(deps, {
          organizationId: auth.organizationId,
          name: params.name,
          correlationKey: body.correlationKey,
          payload: body.payload ?? {},
          signalId,
          workflowId,
        }).catch(asProblem);
        if (!delivered) throw notWaiting(params.name);
        return { status: 200, body: { delivered: true, signalId, executionId: delivered.executionId } };
      },
    }),
  ];
}
