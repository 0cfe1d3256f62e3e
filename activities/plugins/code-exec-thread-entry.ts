/**
 * How the code-exec pool starts a thread (./code-exec-pool.ts): the entry module it runs
 * (./code-exec-thread.ts), as `eval` code that loads under tsx and from dist/ alike.
 */

/** Resolves to the TypeScript source under tsx and to the compiled file in dist/. */
const THREAD_ENTRY = require.resolve('./code-exec-thread');

/**
 * The thread's entry as `eval` code: under tsx (tests, `npm start`) the .ts
 * entry needs tsx's require hook, which worker threads do not inherit from
 * `--import tsx`; the compiled .js entry in dist/ loads as is.
 */
export function threadBootstrap(): string {
  const register = THREAD_ENTRY.endsWith('.ts') ? `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();\n` : '';
  return `${register}require(${JSON.stringify(THREAD_ENTRY)});`;
}
