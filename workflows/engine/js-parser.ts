/**
 * acorn's `parse`, loading acorn on first use. Temporal evaluates the modules of the workflow bundle
 * afresh for every workflow run (each run gets a fresh module cache, even in a reused V8 context), and
 * acorn's start-up (its keyword tables and regular expressions) cost about 4 ms of worker CPU per run,
 * while most runs never parse a script.
 */
import type * as Acorn from 'acorn';

let acorn: typeof Acorn | undefined;

export function parseJs(...args: Parameters<typeof Acorn.parse>): ReturnType<typeof Acorn.parse> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  acorn ??= require('acorn') as typeof Acorn;
  return acorn.parse(...args);
}
