/** Retry-policy defaults and evaluation, shared by activities and workflow retries. */
import { RetryState, TimeoutType, dur, ms, type Failure, type RetryPolicy } from './proto';

export function withRetryDefaults(policy: RetryPolicy | null | undefined): RetryPolicy {
  const initialMs = ms(policy?.initialInterval) || 1000;
  return {
    initialInterval: dur(initialMs),
    backoffCoefficient: policy?.backoffCoefficient || 2,
    maximumInterval: dur(ms(policy?.maximumInterval) || 100 * initialMs),
    maximumAttempts: policy?.maximumAttempts ?? 0,
    nonRetryableErrorTypes: policy?.nonRetryableErrorTypes ?? [],
  };
}

const TIMEOUT_NAMES: Partial<Record<number, string>> = {
  [TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE]: 'StartToClose',
  [TimeoutType.TIMEOUT_TYPE_HEARTBEAT]: 'Heartbeat',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START]: 'ScheduleToStart',
  [TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE]: 'ScheduleToClose',
};

export interface RetryDecision {
  retryState: RetryState;
  delayMs: number;
}

/**
 * Whether attempt `attempt` (just failed with `failure`) is retried, and after how long.
 * `expiresAt` (ms, 0 = none) bounds the next attempt's start.
 */
export function evaluateRetry(
  policy: RetryPolicy | null | undefined,
  attempt: number,
  failure: Failure | null | undefined,
  now: number,
  expiresAt: number,
): RetryDecision {
  if (!policy) return { retryState: RetryState.RETRY_STATE_RETRY_POLICY_NOT_SET, delayMs: 0 };
  const nonRetryable = new Set(policy.nonRetryableErrorTypes ?? []);
  const app = failure?.applicationFailureInfo;
  const timeout = failure?.timeoutFailureInfo;
  const fail = (retryState: RetryState): RetryDecision => ({ retryState, delayMs: 0 });
  if (app && (app.nonRetryable || (app.type && nonRetryable.has(app.type)))) return fail(RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
  if (failure?.canceledFailureInfo || failure?.terminatedFailureInfo) return fail(RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
  if (failure?.serverFailureInfo?.nonRetryable) return fail(RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
  if (timeout) {
    const type = timeout.timeoutType ?? 0;
    if (type === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_START || type === TimeoutType.TIMEOUT_TYPE_SCHEDULE_TO_CLOSE) {
      return fail(RetryState.RETRY_STATE_TIMEOUT);
    }
    if (nonRetryable.has(`TemporalTimeout:${TIMEOUT_NAMES[type] ?? ''}`)) return fail(RetryState.RETRY_STATE_NON_RETRYABLE_FAILURE);
  }
  const maximumAttempts = policy.maximumAttempts ?? 0;
  if (maximumAttempts > 0 && attempt >= maximumAttempts) return fail(RetryState.RETRY_STATE_MAXIMUM_ATTEMPTS_REACHED);
  let delayMs: number;
  const nextRetryDelay = ms(app?.nextRetryDelay);
  if (nextRetryDelay > 0) {
    delayMs = nextRetryDelay;
  } else {
    const initialMs = ms(policy.initialInterval) || 1000;
    const maxMs = ms(policy.maximumInterval) || 100 * initialMs;
    delayMs = Math.min(initialMs * Math.pow(policy.backoffCoefficient || 2, attempt - 1), maxMs);
  }
  if (expiresAt > 0 && now + delayMs >= expiresAt) return fail(RetryState.RETRY_STATE_TIMEOUT);
  return { retryState: RetryState.RETRY_STATE_IN_PROGRESS, delayMs };
}
