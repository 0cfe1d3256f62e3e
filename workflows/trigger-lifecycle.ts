/**
 * The Temporal workflow that tells an operator's trigger plugin its trigger
 * was activated or deactivated: one activity in the worker, where operator
 * plugins run (egress policy, secrets resolved there and redacted). The API's
 * registrar starts it and waits for its result while it activates an alias.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { TriggerLifecycleRequest, TriggerLifecycleResult } from './engine';

/** The plugin's own deadline is inside this; a plugin error marked not retryable is not retried. */
const { runTriggerPlugin } = proxyActivities<Activities>({
  startToCloseTimeout: '40 seconds',
  retry: { maximumAttempts: 3, initialInterval: '1 second', backoffCoefficient: 2 },
});

export async function runTriggerLifecycle(request: TriggerLifecycleRequest): Promise<TriggerLifecycleResult> {
  return runTriggerPlugin(request);
}
