/**
 * The three error dialects of the API contract, one per route family:
 * - problem+json for the workflow engine,
 * - `{error, message}` for secrets and variables (config entries), whose
 *   5xx answers fall back to problem+json,
 * - `{statusCode, error, message, code}` for administration (and operations).
 * Each area stamps its dialect on its route declarations (`withDialect`); the path
 * decides only for requests that match no declared route (404, 405).
 */
import type { HttpError } from './errors';

export type Dialect = 'problem' | 'config' | 'admin';

/** The dialect of a request no route declared: that of the family whose paths it falls under. */
export function unmatchedRouteDialect(path: string): Dialect {
  if (path === '/workflows/config' || path.startsWith('/workflows/config/')) return 'config';
  if (path === '/workflows' || path.startsWith('/workflows/')) return 'problem';
  return 'admin';
}

export interface RenderedError {
  contentType: string;
  body: Record<string, unknown>;
}

export function renderError(error: HttpError, dialect: Dialect, instance: string, problemTypeBase: string): RenderedError {
  if (dialect === 'admin') {
    return {
      contentType: 'application/json',
      body: {
        statusCode: error.status,
        error: error.title,
        message: error.message,
        code: error.code,
        // One entry per offending field, when the failure has them (as problem details carry them).
        ...(error.errors ? { errors: error.errors } : {}),
        ...error.extra,
      },
    };
  }
  if (dialect === 'config' && error.status < 500) {
    return { contentType: 'application/json', body: { error: error.code, message: error.message, ...error.extra } };
  }
  return {
    contentType: 'application/problem+json',
    body: {
      type: `${problemTypeBase}/${problemName(error.code)}`,
      title: error.title,
      status: error.status,
      detail: error.message,
      instance,
      ...(error.errors ? { errors: error.errors } : {}),
      ...error.extra,
    },
  };
}

/** `not_found` → `not-found`; `WORKFLOW_NOT_FOUND` → `workflow-not-found`. */
export function problemName(code: string): string {
  return code
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
