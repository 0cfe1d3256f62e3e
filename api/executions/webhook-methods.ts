/**
 * The verbs a webhook trigger accepts, from its `methods` list or its `method`.
 * `ANY` (also the default) covers every verb except GET and HEAD: safe methods
 * are what link previews, crawlers and health checkers send, so they start a
 * run (or deliver a signal) only when the trigger names them explicitly.
 */
import { webhookMethodNotAllowed } from './errors';

const ANY = ['POST', 'PUT', 'PATCH', 'DELETE'];

export function acceptedMethods(config: Record<string, unknown>): string[] {
  const declared = Array.isArray(config.methods) ? config.methods : typeof config.method === 'string' ? [config.method] : ['ANY'];
  const verbs = declared.filter((verb): verb is string => typeof verb === 'string').map((verb) => verb.toUpperCase());
  return [...new Set(verbs.flatMap((verb) => (verb === 'ANY' ? ANY : [verb])))];
}

/** 405 with `Allow` unless the trigger accepts this request's verb. */
export function checkMethod(config: Record<string, unknown>, method: string): void {
  const accepted = acceptedMethods(config);
  if (!accepted.includes(method.toUpperCase())) {
    const allow = accepted.join(', ');
    throw webhookMethodNotAllowed(allow);
  }
}
