/**
 * The three error dialects of the API contract, chosen by route family:
 * - problem+json for the workflow engine (`/workflows/**` except config),
 * - `{error, message}` for secrets and variables (`/workflows/config**`), whose
 *   5xx answers fall back to problem+json,
 * - `{statusCode, error, message, code}` for everything else (administration).
 */
import type { HttpError } from './errors';

export type Dialect = 'problem' | 'config' | 'admin';

export function dialectFor(path: string): Dialect {
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
      body: { statusCode: error.status, error: error.title, message: error.message, code: error.code, ...error.extra },
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
