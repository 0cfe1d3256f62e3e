/**
 * The `wait` query parameter of GET /workflows/executions/{id}, read with the
 * step timeouts' duration parser so a client writes durations one way
 * everywhere. A plain number counts seconds here (`wait=30`), not milliseconds
 * as in a definition: in a URL a bare number of milliseconds would be a
 * surprise. The ceiling is configured, so it is checked here rather than in the
 * static query schema; the 400 has the same shape as the schema's own.
 */
import { parseDuration } from '../../workflows/engine';
import { validationFailed } from '../http/errors';

const PLAIN_NUMBER = /^\s*\d+(?:\.\d+)?\s*$/;

/** Milliseconds to wait (0 without the parameter), or a 400 at `/query/wait` for a malformed or too long value. */
export function waitMilliseconds(wait: string | undefined, maxSeconds: number): number {
  if (wait === undefined) return 0;
  const ms = parseDuration(PLAIN_NUMBER.test(wait) ? `${wait.trim()}s` : wait);
  if (ms === undefined) {
    throw validationFailed([{ path: '/query/wait', message: `must be a duration such as 500ms, 30s or 2m, or a number of seconds` }]);
  }
  if (ms > maxSeconds * 1000) {
    throw validationFailed([{ path: '/query/wait', message: `must be at most ${maxSeconds}s (EXECUTION_WAIT_MAX_SECONDS)` }]);
  }
  return Math.ceil(ms);
}
