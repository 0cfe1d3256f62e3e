/**
 * Retries of plugins that run inside the workflow (sub-workflow above all: a
 * child run that fails is started again). Activities get their retry policy
 * from Temporal; an inline plugin gets the same policy here, with the same
 * mapping (./retry) and a durable timer between attempts. Only a thrown
 * failure is retried: a failure result is the plugin's business (a wait that
 * timed out, a bad config) and is not, as with non-retryable activity errors.
 */
import type { RetryPolicy } from '../definition';
import { toTemporalRetryPolicy } from './retry';
import type { PluginResult, RuntimeEffects } from './types';

export async function withInlineRetries(
  policy: RetryPolicy | undefined,
  effects: Pick<RuntimeEffects, 'sleep'>,
  attempt: () => PluginResult | Promise<PluginResult>,
): Promise<PluginResult> {
  if (!policy) return attempt();
  const { maximumAttempts, initialIntervalMs, backoffCoefficient, maximumIntervalMs } = toTemporalRetryPolicy(policy);
  let interval = initialIntervalMs;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (attemptNumber >= maximumAttempts) throw error;
      await effects.sleep(interval);
      interval = Math.min(interval * backoffCoefficient, maximumIntervalMs ?? Number.POSITIVE_INFINITY);
    }
  }
}
