/**
 * Retries the engine runs itself, on a durable timer between attempts:
 * - for plugins that run inside the workflow (sub-workflow above all: a child
 *   run that fails is started again), whose failures Temporal never sees;
 * - for activities whose policy asks for `jitter`, which Temporal's retry
 *   policies lack: the activity then gets one attempt per call and the engine
 *   waits the backoff interval scaled by a random factor in
 *   [1 − jitter, 1 + jitter] (the workflow's random source, so replay draws
 *   the same numbers).
 * - for each iteration of a `forEach` step (runs of rules 4 and later): retried on
 *   its own, a failure result marked `retryable: true` as a thrown failure.
 * The policy maps as for activities (./retry). A thrown failure is retried
 * unless marked non-retryable (or of a non-retryable type); otherwise a
 * failure result is the plugin's business (a wait that timed out, a bad
 * config), as non-retryable activity errors are.
 */
import type { RetryPolicy } from '../definition';
import { NON_RETRYABLE_ERROR_TYPES, toTemporalRetryPolicy } from './retry';
import type { PluginResult, RuntimeEffects } from './types';

export function jitterOf(policy: RetryPolicy | undefined): number {
  const jitter = policy?.jitter;
  return typeof jitter === 'number' && jitter > 0 ? Math.min(jitter, 1) : 0;
}

/** Whether a thrown failure may be retried: not marked non-retryable, and not of a non-retryable type. */
function retryable(error: unknown): boolean {
  const failure = error as { nonRetryable?: boolean; type?: string; cause?: { nonRetryable?: boolean; type?: string } } | null;
  const cause = failure?.cause ?? failure;
  if (cause?.nonRetryable === true || failure?.nonRetryable === true) return false;
  return !(typeof cause?.type === 'string' && NON_RETRYABLE_ERROR_TYPES.includes(cause.type));
}

/** A number in [0, 1) from the workflow's deterministic uuid source (an FNV-1a hash of one uuid). */
function random(effects: Pick<RuntimeEffects, 'uuid'>): number {
  let hash = 0x811c9dc5;
  for (const char of effects.uuid()) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash / 0x1_0000_0000;
}

export async function withRetries(
  policy: RetryPolicy | undefined,
  effects: Pick<RuntimeEffects, 'sleep' | 'uuid'>,
  /** One attempt; `attemptNumber` is 1 on the first and counts up on each retry. */
  attempt: (attemptNumber: number) => PluginResult | Promise<PluginResult>,
  /** Also retry a failure result marked `retryable: true` (a forEach iteration, ../engine-rules); the last one is returned. */
  options: { retryFailureResults?: boolean } = {},
): Promise<PluginResult> {
  if (!policy) return attempt(1);
  const { maximumAttempts, initialIntervalMs, backoffCoefficient, maximumIntervalMs } = toTemporalRetryPolicy(policy);
  const jitter = jitterOf(policy);
  let interval = initialIntervalMs;
  for (let attemptNumber = 1; ; attemptNumber += 1) {
    try {
      const result = await attempt(attemptNumber);
      const again = options.retryFailureResults === true && result.status === 'failure' && result.error?.retryable === true;
      if (!again || attemptNumber >= maximumAttempts) return result;
    } catch (error) {
      if (attemptNumber >= maximumAttempts || !retryable(error)) throw error;
    }
    const factor = jitter > 0 ? 1 + jitter * (2 * random(effects) - 1) : 1;
    await effects.sleep(Math.round(interval * factor));
    interval = Math.min(interval * backoffCoefficient, maximumIntervalMs ?? Number.POSITIVE_INFINITY);
  }
}
