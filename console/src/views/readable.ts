/**
 * API values as people read them: objects as key/value lists (nested values as
 * JSON), errors as their code and message, durations in words, and the mask the
 * engine writes where a secret was used (`<redacted>`) marked as such.
 */
import { h, json, text } from '../dom';

/** What the engine shows where a step's config read a secret (workflows/engine/templates.ts SECRET_MASK). */
export const SECRET_MASK = '<redacted>';

/** A JSON rendering of `value` in which every secret mask is a <mark class="secret-mask">. */
export function maskedJson(value: unknown): HTMLElement {
  const parts = json(value).split(SECRET_MASK);
  const pre = h('pre', {});
  parts.forEach((part, index) => {
    if (index > 0)
      pre.append(h('mark', { class: 'secret-mask', title: 'A secret was used here; its value is never shown' }, '•••• secret'));
    pre.append(part);
  });
  return pre;
}

/** An object's keys and values (a scalar as text, anything else as JSON); other values as JSON. */
export function keyValues(value: unknown): HTMLElement {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return maskedJson(value);
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return h('p', { class: 'meta' }, 'None.');
  return h(
    'dl',
    { class: 'key-values' },
    ...entries.flatMap(([key, item]) => [
      h('dt', {}, key),
      h('dd', {}, item !== null && typeof item === 'object' ? maskedJson(item) : h('span', { class: 'value' }, text(item) || json(item))),
    ]),
  );
}

/** An error of the API (`{code|type, message, …}`) as its code and message, the rest as JSON. */
export function readableError(error: unknown): HTMLElement {
  if (error === null || typeof error !== 'object') return h('p', { class: 'error-text' }, text(error));
  const { code, type, message, ...rest } = error as Record<string, unknown>;
  const kind = text(code ?? type);
  return h(
    'div',
    { class: 'readable-error', role: 'note' },
    h('p', { class: 'error-text' }, kind ? h('strong', {}, kind, ': ') : null, text(message) || json(error)),
    Object.keys(rest).length > 0 ? h('details', {}, h('summary', {}, 'Details'), maskedJson(rest)) : null,
  );
}

/** Milliseconds as `850 ms`, `12.4 s`, `3 min 5 s`, `2 h 4 min`. */
export function duration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Milliseconds since the epoch of an ISO time from the API (NaN when absent). */
export const ms = (iso: unknown): number => (typeof iso === 'string' ? Date.parse(iso) : Number.NaN);
