/**
 * What a plugin call hands back to the workflow, made fit for its history: a result within the run's
 * output limit, and a failure rebuilt with every secret form removed.
 */
import { ApplicationFailure } from '@temporalio/common';
import { ExpressionError, PLUGIN_ATTEMPT_DETAIL, PLUGIN_LOGS_DETAIL, RUN_LIMIT_SETTINGS, type PluginResult } from '../workflows/engine';
import type { Scrubber } from './secrets/scrubber';

/** Refuses a result over the run's output limit here, so it never reaches the workflow's history. */
export function checkOutputSize(result: PluginResult, maxBytes: number | undefined): void {
  if (maxBytes === undefined) return;
  const size = Buffer.byteLength(JSON.stringify(result.items ?? result.outputs ?? null));
  if (size > maxBytes)
    throw ApplicationFailure.nonRetryable(
      `the step produced ${size} bytes of output; at most ${maxBytes} are allowed (${RUN_LIMIT_SETTINGS.maxStepOutputBytes})`,
      'STEP_OUTPUT_TOO_LARGE',
    );
}

/**
 * Rebuilds a failure with every secret form removed from its message, type and
 * details, carrying the plugin's log lines (PLUGIN_LOGS_DETAIL) so a failed
 * step's logs are recorded too, and Temporal's attempt number that failed
 * (PLUGIN_ATTEMPT_DETAIL, for the step's attempts). The failure is new: the original's `cause`
 * chain and stack (which scrubbing does not reach) never leave the worker.
 */
export function scrubFailure(
  error: unknown,
  scrubber: Scrubber,
  logs: NonNullable<PluginResult['logs']>,
  attempt: number,
): ApplicationFailure {
  const logDetail = { [PLUGIN_LOGS_DETAIL]: scrubber.value(logs), [PLUGIN_ATTEMPT_DETAIL]: attempt };
  if (error instanceof ApplicationFailure) {
    return ApplicationFailure.create({
      message: scrubber.text(error.message),
      // An operator plugin may throw its own ApplicationFailure, type included.
      type: error.type == null ? undefined : scrubber.text(error.type),
      nonRetryable: error.nonRetryable ?? undefined,
      details: [...scrubber.value(error.details ?? []), logDetail],
    });
  }
  if (error instanceof ExpressionError) {
    // A template the activity evaluates (one that reads a secret) fails the same way on every attempt.
    return ApplicationFailure.create({ message: scrubber.text(error.message), type: error.code, nonRetryable: true, details: [logDetail] });
  }
  return ApplicationFailure.create({
    message: scrubber.text(error instanceof Error ? error.message : String(error)),
    type: 'PLUGIN_ERROR',
    details: [logDetail],
  });
}
