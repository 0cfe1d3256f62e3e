/** Problem types of the execution routes (rendered as problem+json under /workflows). */
import { ExecutorUnavailable, FlowKeyInvalid, FlowLimitReached, FlowQueueFull } from '../../executions';
import type { TriggerStep } from '../../workflows/engine';
import { HttpError, type FieldError } from '../http/errors';

export const executionNotFound = (id: string): HttpError =>
  new HttpError(404, 'execution-not-found', `No execution "${id}" exists in your organization.`);

export const executorUnavailable = (): HttpError =>
  new HttpError(
    503,
    'executor-unavailable',
    'The workflow executor (Temporal) is unavailable. Retry with the same idempotencyKey: an execution starts at most once per key.',
  );

export const notWaiting = (name: string): HttpError =>
  new HttpError(409, 'signal-not-waiting', `The execution is not waiting on signal "${name}".`);

export const executionFinished = (id: string, status: string): HttpError =>
  new HttpError(409, 'execution-finished', `Execution "${id}" has already finished (${status}).`);

const listed = (triggers: TriggerStep[]) => triggers.map((step) => `${step.id} (${step.pluginType})`).join(', ');

/** A start by hand of a workflow with several triggers and no manual one, naming none of them. */
export const triggerRequired = (workflowId: string, triggers: TriggerStep[]): HttpError =>
  new HttpError(
    400,
    'trigger-required',
    `Workflow "${workflowId}" has no manual trigger and several others: name the one to fire in triggerId (one of ${listed(triggers)}).`,
    { errors: [{ path: '/triggerId', message: `is required: one of ${listed(triggers)}` }] },
  );

/** A start by hand naming a step that is not a trigger step of the revision. */
export const unknownTrigger = (workflowId: string, triggerId: string, triggers: TriggerStep[]): HttpError =>
  new HttpError(
    400,
    'trigger-not-found',
    `Revision of workflow "${workflowId}" has no trigger step "${triggerId}" (its triggers: ${listed(triggers) || 'none'}).`,
    { errors: [{ path: '/triggerId', message: `must name a trigger step: ${listed(triggers) || 'none'}` }] },
  );

/** Rethrows the execution module's domain errors as this area's problem types: `await startExecution(…).catch(asProblem)`. */
export function asProblem(error: unknown): never {
  if (error instanceof ExecutorUnavailable) throw executorUnavailable();
  if (error instanceof FlowLimitReached) throw flowLimitReached(error);
  if (error instanceof FlowQueueFull) throw flowQueueFull(error);
  if (error instanceof FlowKeyInvalid) throw flowKeyInvalid(error);
  throw error;
}

/** Flow control (executions/flow/): a start refused at its key's limit names the key and the runs holding it. */
export const flowLimitReached = (error: FlowLimitReached): HttpError =>
  new HttpError(409, 'flow-limit-reached', `The start was refused: ${error.message}.`, {
    extra: { flowKey: error.flowKey, kind: error.kind, heldBy: error.holders },
  });

export const flowQueueFull = (error: FlowQueueFull): HttpError =>
  new HttpError(429, 'flow-queue-full', `The start was refused: ${error.message}.`, {
    extra: { flowKey: error.flowKey, limit: error.limit, scope: error.scope },
  });

export const flowKeyInvalid = (error: FlowKeyInvalid): HttpError =>
  new HttpError(400, 'flow-key-invalid', `The start was refused: ${error.message}.`);

/** Declared-answer waits (approval-gate.ts): who may answer, and what. */
export const notAnApprover = (name: string): HttpError =>
  new HttpError(403, 'not-an-approver', `You are not one of the approvers of the wait on signal "${name}".`);

export const starterMayNotAnswer = (name: string): HttpError =>
  new HttpError(403, 'starter-may-not-answer', `The wait on signal "${name}" needs another person's answer: you started this run.`);

export const alreadyAnswered = (name: string): HttpError =>
  new HttpError(409, 'already-answered', `You have already answered the wait on signal "${name}"; another approver must answer.`);

export const answerInvalid = (name: string, errors: FieldError[]): HttpError =>
  new HttpError(422, 'answer-invalid', `The answer does not match the form of the wait on signal "${name}".`, { errors });
