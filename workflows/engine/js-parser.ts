/**
 * acorn's `parse`, the one parser of scripts in the engine. acorn's start-up (its keyword tables and regular
 * expressions) is not free: the worker evaluates it once per worker thread, with the rest of the engine
 * (PRELOADED_WORKFLOW_MODULES in worker/worker.ts), not once per workflow run.
 */
import { parse } from 'acorn';

export function parseJs(...args: Parameters<typeof parse>): ReturnType<typeof parse> {
  return parse(...args);
}
