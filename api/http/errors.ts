/**
 * Typed HTTP errors. Handlers throw these; the one error handler at the front
 * of the chain renders them in the dialect of the route family
 * (see dialects.ts). Anything that is not an `HttpError` is a bug and answers
 * 500 with no internal detail.
 */
import { STATUS_CODES } from 'node:http';

export interface FieldError {
  /** JSON pointer to the offending value, e.g. `/steps/fetch/config/url`. */
  path: string;
  message: string;
}

export interface HttpErrorOptions {
  /** One entry per offending field (validation failures). */
  errors?: FieldError[];
  /** Extra top-level body fields a contract requires (e.g. bulk grant `cause`). */
  extra?: Record<string, unknown>;
  /** Headers to send with the error (e.g. `Allow` on 405). */
  headers?: Record<string, string>;
}

export class HttpError extends Error {
  readonly errors?: FieldError[];
  readonly extra?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  /**
   * @param status HTTP status
   * @param code machine-readable code in the style of its route family:
   *   kebab-case names for problem types (`workflow-not-found`), snake_case for
   *   config and generic codes (`invalid_name`, `not_found`), dotted upper case
   *   for admin domain codes (`RESOURCE_GRANTS.BULK_CREATE_FAILED`).
   * @param message human-readable detail; always safe to show to the client.
   */
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.name = 'HttpError';
    this.errors = options.errors;
    this.extra = options.extra;
    this.headers = options.headers;
  }

  get title(): string {
    return STATUS_CODES[this.status] ?? 'Error';
  }
}

export const badRequest = (message: string, code = 'bad_request', options?: HttpErrorOptions): HttpError =>
  new HttpError(400, code, message, options);

export const validationFailed = (errors: FieldError[], message?: string, code = 'validation_failed'): HttpError =>
  new HttpError(400, code, message ?? describeFieldErrors(errors), { errors });

export const unauthorized = (message = 'A valid bearer token is required.'): HttpError =>
  new HttpError(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': 'Bearer' } });

export const forbidden = (message = 'You do not have permission to perform this operation.'): HttpError =>
  new HttpError(403, 'forbidden', message);

export const notFound = (message = 'The requested resource was not found.', code = 'not_found'): HttpError =>
  new HttpError(404, code, message);

export const conflict = (message: string, code = 'conflict', options?: HttpErrorOptions): HttpError =>
  new HttpError(409, code, message, options);

export const tooManyRequests = (message: string, retryAfterSeconds: number, code = 'too_many_requests'): HttpError =>
  new HttpError(429, code, message, { headers: { 'Retry-After': String(retryAfterSeconds) } });

export const payloadTooLarge = (limit: number): HttpError =>
  new HttpError(413, 'payload_too_large', `The request body exceeds the limit of ${limit} bytes.`);

export const unsupportedMediaType = (accepted: string, got: string): HttpError =>
  new HttpError(415, 'unsupported_media_type', `Content-Type must be ${accepted} (got "${got || 'none'}").`);

export const internalError = (): HttpError => new HttpError(500, 'internal_server_error', 'An internal error occurred.');

/** PostgreSQL is down or refusing connections: retryable, and (one statement or one transaction per write) nothing was half-applied. */
export const databaseUnavailable = (): HttpError =>
  new HttpError(503, 'database_unavailable', 'The database is unavailable right now; retry shortly.', { headers: { 'Retry-After': '2' } });

export function describeFieldErrors(errors: FieldError[]): string {
  if (errors.length === 0) return 'The request is invalid.';
  const first = errors[0];
  const where = first.path === '' ? 'the request' : first.path;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem${errors.length > 2 ? 's' : ''})` : '';
  return `Invalid value at ${where}: ${first.message}${more}`;
}
