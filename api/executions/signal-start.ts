/**
 * Signal-with-start: when no execution waits on a signal, POST
 * /workflows/signals/{name} with `startIfNotWaiting` starts one of the named
 * workflow (the caller also needs workflow:execute on it), as the execute
 * endpoint would with `inputs` and the correlation key. The signal travels in
 * the run's trigger record, so the run's first wait on that name and key
 * receives it, also when the start is repaired by the reconciler.
 */
import type { WorkflowEntity } from '../../db/entities/workflow';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { startExecution } from '../../executions';
import { handRunInputs, handRunPayload, type TriggerInfo } from '../../workflows/engine';
import { authorize } from '../access/access';
import type { AuthContext } from '../http/auth';
import { workflowNrn } from '../access/workflow-reach';
import { workflowNotFound } from '../workflows/errors';
import type { ExecutionDeps } from './deps';
import { asProblem, noRunnableRevision } from './errors';
import { checkHandRunInputs, firedTrigger } from './execute';

export interface SignalStart {
  name: string;
  signalId: string;
  correlationKey: string;
  payload: unknown;
  inputs: Record<string, unknown>;
  alias?: string;
  idempotencyKey?: string;
}

/** Starts the execution a signal asked for; returns its id. */
export async function startForSignal(
  deps: ExecutionDeps,
  auth: AuthContext,
  workflow: WorkflowEntity,
  start: SignalStart,
): Promise<string> {
  await authorize(deps.dataSource, auth, 'workflow:execute', workflowNrn(workflow), () => workflowNotFound(workflow.id));
  const runnable = await new WorkflowRevisionRepository(deps.dataSource.manager).findRunnable(auth.organizationId, workflow.id, {
    alias: start.alias,
  });
  if (typeof runnable === 'string') throw noRunnableRevision(runnable, workflow.id, start.alias);
  // The trigger the execute endpoint would fire (workflows/engine/hand-run.ts; refused when several and none is manual),
  // and its inputs checked as execute checks them.
  const fired = firedTrigger(runnable.definition, workflow.id);
  checkHandRunInputs(runnable.definition, fired, start.inputs);
  const now = new Date();
  const payload = handRunPayload(runnable.definition, fired, start.inputs, now);
  const triggerInfo: TriggerInfo = {
    stepId: fired?.id,
    source: 'signal',
    payload,
    receivedAt: now.toISOString(),
    signal: { name: start.name, signalId: start.signalId, correlationKey: start.correlationKey, payload: start.payload },
  };
  const { row } = await startExecution(deps, {
    organizationId: auth.organizationId,
    runnable,
    inputs: handRunInputs(fired, payload, start.inputs),
    trigger: triggerInfo,
    correlationKey: start.correlationKey,
    // A repeat of an idempotent signal-with-start finds this run instead of starting another.
    idempotencyKey: start.idempotencyKey === undefined ? undefined : `signal:${start.idempotencyKey}`,
    createdBy: auth.userId,
  }).catch(asProblem);
  return row.id;
}
