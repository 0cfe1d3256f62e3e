/**
 * Retry policies in both spellings (engine-reference §0) mapped to Temporal's:
 * `{maxRetries, backoff, initialInterval}` and
 * `{max_attempts, initial_interval, backoff_strategy, jitter}` (normalized to
 * camelCase). Without a policy a step runs once. Temporal has no jitter: a
 * policy with `jitter` is run by the engine itself (./retry-loop).
 */
import type { RetryPolicy } from '../definition';
import { parseDuration } from '../durations';
import type { TemporalRetryPolicy } from './types';

export const MAX_ATTEMPTS_CAP = 100;
/** Error types never retried, whatever the policy (a config the plugin refused, a secret without a value). */
export const NON_RETRYABLE_ERROR_TYPES: readonly string[] = ['PLUGIN_CONFIG_INVALID', 'SECRET_UNRESOLVED'];

export function toTemporalRetryPolicy(policy: RetryPolicy | undefined): TemporalRetryPolicy {
  if (!policy) return { maximumAttempts: 1, initialIntervalMs: 1000, backoffCoefficient: 2 };
  const attempts =
    typeof policy.maxAttempts === 'number' ? policy.maxAttempts : typeof policy.maxRetries === 'number' ? policy.maxRetries + 1 : 1;
  const strategy = String(policy.backoffStrategy ?? policy.backoff ?? 'exponential').toLowerCase();
  return {
    maximumAttempts: Math.min(MAX_ATTEMPTS_CAP, Math.max(1, Math.floor(attempts))),
    initialIntervalMs: parseDuration(policy.initialInterval) ?? 1000,
    backoffCoefficient: strategy === 'exponential' ? 2 : 1,
    maximumIntervalMs: parseDuration(policy.maxInterval),
  };
}
