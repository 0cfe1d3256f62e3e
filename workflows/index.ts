/**
 * Entry point of the workflow bundle: every Temporal workflow the worker
 * registers is exported from here. Code reachable from this file runs inside
 * Temporal's deterministic sandbox (see the lint rules for workflows/).
 */
export { runWorkflowExecution } from './execution';
export { runTriggerLifecycle } from './trigger-lifecycle';
