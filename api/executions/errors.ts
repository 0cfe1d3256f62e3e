/** Problem types of the execution routes (rendered as problem+json under /workflows). */
import { ExecutorUnavailable } from '../../executions';
import { HttpError } from '../http/errors';

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

/** Rethrows the execution module's domain errors as this area's problem types: `await startExecution(…).catch(asProblem)`. */
export function asProblem(error: unknown): never {
  if (error instanceof ExecutorUnavailable) throw executorUnavailable();
  throw error;
}
