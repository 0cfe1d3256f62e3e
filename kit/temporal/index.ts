/** `executor: 'temporal'` (loaded on first use: the in-process kit needs neither the Temporal SDK nor the workflow bundle). */
export { runWorkflowOnTemporal, type TemporalRunOptions } from './run';
export { closeTemporalExecutor, IDLE_CLOSE_MS, type TemporalTarget } from './session';
