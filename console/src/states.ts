/** The clear states every view shows: loading, empty, and errors (with 401/403/404 spelled out). */
import { ApiError } from './api';
import { h, link } from './dom';

export const loading = (what = 'Loading…'): HTMLElement => h('p', { class: 'state loading', role: 'status' }, what);

export const empty = (what: string): HTMLElement => h('p', { class: 'state empty' }, what);

export function errorState(error: unknown): HTMLElement {
  if (!(error instanceof ApiError)) {
    return h(
      'div',
      { class: 'state error', role: 'alert' },
      h('strong', {}, 'Something went wrong. '),
      String((error as Error)?.message ?? error),
    );
  }
  const heading =
    error.status === 401
      ? 'Your session has ended.'
      : error.status === 403
        ? 'You may not see or do this.'
        : error.status === 404
          ? 'Not found, or not visible to you.'
          : error.status === 409
            ? 'Conflict.'
            : `The API answered ${error.status}.`;
  const fieldErrors = Array.isArray(error.body?.errors) ? (error.body.errors as Array<{ path?: string; message?: string }>) : [];
  return h(
    'div',
    { class: `state error status-${error.status}`, role: 'alert', 'data-status': error.status },
    h('strong', {}, heading, ' '),
    h('span', { class: 'message' }, error.message),
    fieldErrors.length > 0 ? h('ul', {}, ...fieldErrors.map((e) => h('li', {}, h('code', {}, e.path || '/'), ' ', e.message ?? ''))) : null,
    error.status === 401 ? h('p', {}, link('/console/sign-in', 'Sign in again')) : null,
  );
}
