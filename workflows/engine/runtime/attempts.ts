/**
 * What a step record tells a reader about its plugin calls, beyond their result: the config each run's call
 * was made with (resolved, every template that reads a secret shown masked, so no secret value is ever
 * recorded), and its attempts when there was more than one: the ones the engine ran itself (with their times
 * and errors) and, before each, the ones Temporal retried on its own (known by number only).
 */
import type { EvaluationScope } from '../evaluate';
import { maskedTemplate, type DeferredTemplate } from '../templates';
import { utf8Length } from './sizes';
import {
  PLUGIN_ATTEMPT_DETAIL,
  PLUGIN_LOGS_DETAIL,
  type PluginResult,
  type RuntimeEffects,
  type StepAttempt,
  type StepError,
  type StepRecord,
} from './types';

/** A recorded config over this many bytes (as JSON) is replaced by a marker: records stay small. */
export const RECORDED_CONFIG_MAX_BYTES = 16 * 1024;

/** The config as the call got it, with each string that reads a secret masked where the activity would resolve it. */
export function recordedConfig(
  config: Record<string, unknown>,
  deferred: DeferredTemplate[],
  scope: EvaluationScope,
): Record<string, unknown> {
  // A JSON copy: structuredClone is absent from the workflow sandbox, and a config is JSON anyway.
  const copy = JSON.parse(JSON.stringify(config)) as Record<string, unknown>;
  for (const { target, path, template } of deferred) {
    if (target !== 'config' || path.length === 0) continue;
    let parent: unknown = copy;
    for (const key of path.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[key];
    if (parent !== null && typeof parent === 'object')
      (parent as Record<string | number, unknown>)[path[path.length - 1]] = maskedTemplate(template, scope);
  }
  const bytes = utf8Length(JSON.stringify(copy));
  return bytes <= RECORDED_CONFIG_MAX_BYTES ? copy : { _truncated: true, configBytes: bytes };
}

/**
 * Wraps one engine attempt of a call: notes it (and the host's own earlier attempts it reports) in `attempts`,
 * numbered on from the attempts already noted for this call.
 */
export async function trackedAttempt(
  effects: Pick<RuntimeEffects, 'now'>,
  attempts: StepAttempt[],
  itemIndex: number | undefined,
  call: () => Promise<PluginResult>,
  toError: (error: unknown) => StepError,
): Promise<PluginResult> {
  const startedAt = new Date(effects.now()).toISOString();
  const note = (status: StepAttempt['status'], hostAttempt: number | undefined, error?: StepError) => {
    // Temporal retried the call itself before this answer: those attempts failed, their errors are Temporal's to show.
    for (let earlier = 1; earlier < (hostAttempt ?? 1); earlier += 1)
      attempts.push({ attempt: attempts.length + 1, status: 'failed', ...(itemIndex !== undefined ? { itemIndex } : {}) });
    attempts.push({
      attempt: attempts.length + 1,
      status,
      ...(itemIndex !== undefined ? { itemIndex } : {}),
      ...(error ? { error } : {}),
      startedAt,
      completedAt: new Date(effects.now()).toISOString(),
    });
  };
  try {
    const result = await call();
    // A failure result is an attempt that failed (a forEach iteration retries one marked retryable).
    if (result.status === 'failure') note('failed', result.attempt, result.error);
    else note('completed', result.attempt);
    return result;
  } catch (error) {
    note('failed', failedAttempt(error), toError(error));
    throw error;
  }
}

/**
 * Attempts one run's record lists at most: a fan-out of thousands of retried calls would otherwise grow the
 * record (and the history it travels in) without bound. The others are counted in `attemptsOmitted`.
 */
export const RECORDED_ATTEMPTS_MAX = 100;

/** Records the attempts on the run's record when there was more than one, up to RECORDED_ATTEMPTS_MAX. */
export function keepAttempts(record: StepRecord | undefined, attempts: StepAttempt[]): void {
  if (!record || attempts.length <= 1) return;
  const kept = record.attempts ?? [];
  const room = Math.max(0, RECORDED_ATTEMPTS_MAX - kept.length);
  record.attempts = [...kept, ...attempts.slice(0, room)];
  if (attempts.length > room) record.attemptsOmitted = (record.attemptsOmitted ?? 0) + attempts.length - room;
}

/** The host's attempt number a failed activity reported in its details (see PLUGIN_ATTEMPT_DETAIL). */
function failedAttempt(error: unknown): number | undefined {
  const details = (error as { cause?: { details?: unknown } } | null)?.cause?.details;
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    // Only in the detail the worker adds (next to the plugin's log lines), never in a plugin's own details.
    if (detail === null || typeof detail !== 'object' || !(PLUGIN_LOGS_DETAIL in detail)) continue;
    const attempt = (detail as Record<string, unknown>)[PLUGIN_ATTEMPT_DETAIL];
    if (typeof attempt === 'number' && Number.isInteger(attempt) && attempt > 0) return attempt;
  }
  return undefined;
}
