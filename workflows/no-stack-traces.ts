/**
 * Turns stack traces off inside workflow runs. Loaded by the worker as a preloaded module of the workflow
 * bundle (worker/worker.ts `workflowBundle`): it runs once per worker thread, when the SDK builds the shared V8
 * context, before the SDK freezes that context's globals; no run can change it after.
 *
 * Why: to answer the `__stack_trace` query (the Temporal UI's "Stack Trace" tab), the SDK's promise hook
 * captures a stack, mapped through the bundle's source map, for every promise a run creates. The engine is an
 * interpreter that awaits at every step, so this is a large share of the workflow thread's CPU
 * (docs/benchmarks.md, "Stack traces off inside runs"). The interpreter's JavaScript stack tells an operator
 * nothing the execution's steps, waits and pending signals (API and console) do not; step failures are data,
 * not JavaScript stacks. `WORKFLOW_STACK_TRACES=true` leaves this module out (docs/configuration.md).
 */
Error.stackTraceLimit = 0;

export {};
