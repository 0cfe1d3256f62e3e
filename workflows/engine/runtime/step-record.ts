/**
 * A step's record and its errors: the record settled from the step's result (completed with its ports and
 * projected items, skipped, or failed with the log line that says why), a thrown failure as a step error,
 * and the log lines a failed activity carried in its details.
 */
import type { StepDefinition } from '../definition';
import { ExpressionError } from '../evaluate';
import type { Activation, StepOutcome } from '../graph/walker';
import { followsRule } from '../engine-rules';
import { RUN_LIMIT_SETTINGS } from '../limits';
import { project } from './paths';
import { utf8Length } from './sizes';
import { PLUGIN_LOGS_DETAIL, type Item, type PluginResult, type StepEnv, type StepError, type StepRecord } from './types';

export function itemsOf(result: PluginResult): Item[] {
  if (result.items) return result.items;
  return result.outputs ? [result.outputs] : [];
}

/** A step whose output is over the run's limit (`max` bytes) fails instead: it would bloat the run's state, history and records. */
export function boundOutput(max: number, stepId: string, result: PluginResult): PluginResult {
  if (result.status !== 'success' || !Number.isFinite(max)) return result;
  const size = utf8Length(JSON.stringify(itemsOf(result)));
  if (size <= max) return result;
  return {
    status: 'failure',
    error: {
      code: 'STEP_OUTPUT_TOO_LARGE',
      message: `step "${stepId}" produced ${size} bytes of output; at most ${max} are allowed (${RUN_LIMIT_SETTINGS.maxStepOutputBytes})`,
      retryable: false,
    },
  };
}

/** Settles the step record from its result and says the step's outcome to the walker. */
export function finish(
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  record: StepRecord,
  result: PluginResult,
): { record: StepRecord; outcome: StepOutcome } {
  const at = iso(env.effects.now());
  record.completedAt = at;
  if (result.status === 'skipped') {
    record.status = 'skipped';
    // The run's record (started above) ends skipped, not another record beside it.
    env.effects.onEvent({
      type: 'step.skipped',
      stepId: step.id,
      at,
      run: record.run,
      ...(record.startedAt ? { startedAt: record.startedAt } : {}),
    });
    return { record, outcome: { status: 'skipped' } };
  }
  if (result.status === 'failure') {
    record.status = 'failed';
    record.error = result.error ?? { code: 'STEP_FAILED', message: `step "${step.id}" failed` };
    // A failure may still say what it did (a forEach with continueOnError: `failed: n`).
    if (result.items || result.outputs) {
      record.items = itemsOf(result);
      record.outputs = record.items[0] ?? {};
    }
    // The run's log says why (the message is scrubbed of secrets where a secret was loaded: the activity's failure).
    env.effects.log({ stepId: step.id, level: 'error', message: `${record.error.code}: ${record.error.message}`, timestamp: at });
    env.effects.onEvent({ type: 'step.failed', stepId: step.id, run: activation.run, at, record });
    return { record, outcome: { status: 'failed', inputItems: activation.items } };
  }
  // A forEach step of rules 4 and later projected each iteration's output already (./for-each.ts).
  const projection = step.forEach && followsRule(env.ctx.input, 'for-each-projects-iterations') ? undefined : step.outputProjection;
  const projectItems = (items: Item[]) => (projection && projection.length > 0 ? items.map((item) => project(item, projection)) : items);
  const items = projectItems(itemsOf(result));
  const routed = result.metadata?.ports as Record<string, Item[]> | undefined;
  const ports: Record<string, Item[]> = routed
    ? Object.fromEntries(Object.entries(routed).map(([port, portItems]) => [port, projectItems(portItems)]))
    : Object.fromEntries((result.activePorts ?? ['default']).map((port) => [port, items]));
  record.status = 'completed';
  record.items = items;
  record.outputs = result.outputs && !result.items ? (items[0] ?? {}) : (result.outputs ?? items[0] ?? {});
  record.activePorts = Object.keys(ports);
  env.effects.onEvent({ type: 'step.completed', stepId: step.id, run: activation.run, at, record });
  return { record, outcome: { status: 'completed', ports } };
}

/** Log lines a failed activity plugin emitted travel in its failure's details; record them like a success's. */
export function recordFailureLogs(env: StepEnv, stepId: string, error: unknown): void {
  const details = (error as { cause?: { details?: unknown } } | null)?.cause?.details;
  if (!Array.isArray(details)) return;
  for (const detail of details) {
    const lines = detail !== null && typeof detail === 'object' ? (detail as Record<string, unknown>)[PLUGIN_LOGS_DETAIL] : undefined;
    if (!Array.isArray(lines)) continue;
    for (const line of lines as Array<{ level?: unknown; message?: unknown }>) {
      const level = line.level === 'debug' || line.level === 'warn' || line.level === 'error' ? line.level : 'info';
      env.effects.log({
        stepId,
        level,
        message: typeof line.message === 'string' ? line.message : JSON.stringify(line.message ?? ''),
        timestamp: new Date(env.effects.now()).toISOString(),
      });
    }
  }
}

export function toStepError(error: unknown): StepError {
  if (error instanceof ExpressionError) return { code: error.code, message: error.message, retryable: false };
  const failure = error as { message?: string; type?: string; cause?: { message?: string; type?: string } };
  const cause = failure?.cause ?? failure;
  return { code: cause?.type ?? 'STEP_FAILED', message: cause?.message ?? String(error), retryable: false };
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
