/**
 * Problem types of the execution routes (rendered as problem+json under /workflows), as named
 * factories: plain functions answering an HttpError (docs/errors.md lists each type).
 */
import { ExecutorUnavailable, FlowKeyInvalid, FlowLimitReached, FlowQueueFull } from '../../executions';
import type { TriggerStep } from '../../workflows/engine';
import type { RunnableMiss } from '../../db/repositories/workflow-revision-repository';
import { HttpError, badRequest, describeFieldErrors, notFound, tooManyRequests, validationFailed, type FieldError } from '../http/errors';

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

export const stepNotFound = (executionId: string, stepId: string): HttpError =>
  new HttpError(404, 'step-not-found', `Execution "${executionId}" has no recorded step "${stepId}".`);

export const pluginNotFound = (name: string): HttpError => new HttpError(404, 'plugin-not-found', `No plugin "${name}" exists.`);

export const statsWindowInvalid = (message: string): HttpError => new HttpError(400, 'stats-window-invalid', message);

export const invalidCursor = (reason: string): HttpError =>
  new HttpError(400, 'invalid-cursor', `The cursor is not one this list gave out with these filters (${reason}). Start again without it.`);

/** A run's revision (its workflow, alias or revision) is gone: it cannot run again. */
export const revisionGone = (miss: RunnableMiss): HttpError =>
  new HttpError(404, miss, `The workflow revision execution ran no longer exists (${miss}); it cannot run again.`);

/** A signal-with-start whose workflow has no runnable revision under the alias. */
export const noRunnableRevision = (miss: RunnableMiss, workflowId: string, alias: string | undefined): HttpError =>
  new HttpError(404, miss, `Workflow "${workflowId}" has no runnable revision under alias "${alias ?? 'latest'}".`);

export const executionNotRetryable = (executionId: string, status: string): HttpError =>
  new HttpError(
    409,
    'execution-not-retryable',
    `Execution "${executionId}" is ${status}: only a failed execution can be retried from its failed step.`,
  );

export const retryTooLarge = (executionId: string, bytes: number, limit: number): HttpError =>
  new HttpError(
    409,
    'retry-too-large',
    `The completed steps of execution "${executionId}" recorded ${bytes} bytes of outputs; a retry carries at most ${limit} (Temporal refuses larger inputs). Re-run it instead.`,
  );

export const idempotencyKeyReused = (): HttpError =>
  new HttpError(409, 'idempotency-key-reused', 'This idempotencyKey was already used for a different signal delivery.');

export const signalDeliveryInProgress = (): HttpError =>
  new HttpError(409, 'signal-delivery-in-progress', 'A delivery with this idempotencyKey is still in progress; retry later.');

/** Webhook ingress (webhook-routes.ts, webhook-signature.ts, webhook-methods.ts). */
export const payloadInvalid = (errors: FieldError[]): HttpError =>
  new HttpError(422, 'payload-invalid', `The request body does not match the webhook's payloadSchema: ${describeFieldErrors(errors)}`, {
    errors,
  });

/** A signal-mode webhook whose payload names no waiting execution (`correlated`: a key it named that nothing waits on). */
export const webhookNotWaiting = (name?: string): HttpError =>
  new HttpError(
    409,
    'signal-not-waiting',
    name === undefined
      ? 'The webhook payload names no waiting execution (signal name or correlation key missing).'
      : `No execution waits on signal "${name}" with that correlation key.`,
  );

export const webhookIdempotencyKeyTooLong = (max: number): HttpError =>
  new HttpError(400, 'idempotency-key-too-long', `The Idempotency-Key header may hold at most ${max} characters.`);

export const webhookSignatureInvalid = (detail: string): HttpError => new HttpError(401, 'webhook-signature-invalid', detail);

export const webhookReplayed = (): HttpError => new HttpError(409, 'webhook-replayed', 'This signed request was already received.');

export const webhookMethodNotAllowed = (allow: string): HttpError =>
  new HttpError(405, 'method-not-allowed', `This webhook accepts ${allow || 'no method'} only.`, { headers: { Allow: allow } });

/** Hand-run inputs (execute, signal-with-start) that fail their declarations: each problem named. */
export const inputsInvalid = (errors: FieldError[]): HttpError => validationFailed(errors, undefined, 'inputs-invalid');

export const startNeedsWorkflow = (): HttpError =>
  badRequest('startIfNotWaiting needs workflowId: the workflow to start when no execution waits.', 'validation_failed');

/** No live webhook (`trigger`) or waiting step (`callback`) answers at the address. */
export const webhookNotFound = (kind: 'trigger' | 'callback'): HttpError =>
  notFound(
    kind === 'trigger' ? 'No live webhook answers at this address.' : 'No step waits for a request at this address.',
    'webhook-not-found',
  );

export const webhookTooManyRequests = (message: string, retryAfterSeconds: number): HttpError =>
  tooManyRequests(message, retryAfterSeconds, 'too-many-requests');

/** The caller's (or its organization's) share of open event streams and waiting reads is full. */
export const tooManyStreams = (message: string, retryAfterSeconds: number): HttpError =>
  tooManyRequests(message, retryAfterSeconds, 'too-many-streams');
