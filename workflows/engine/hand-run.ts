/**
 * Which trigger a start by hand fires (the API's execute, signal-with-start,
 * the console's run button) and the payload it gets. A workflow with a manual
 * trigger fires it (the first one, as always). Without one, a hand-run is a
 * "run now" of the workflow's trigger: exactly one trigger step fires with the
 * payload its own source would give (a cron tick's `{firedAt, schedule}`, a
 * webhook request's `{method, headers, query, body}`; a cron tick's run inputs
 * are that payload too); with several, the
 * caller names one (`triggerId`), else the start is refused, naming them. A
 * workflow without trigger steps starts its entry steps with the inputs.
 */
import type { WorkflowDefinition } from './definition';

export interface TriggerStep {
  id: string;
  pluginType: string;
}

export type HandRun =
  /** Fires `step` (undefined: the workflow has no trigger step; its entry steps start with the inputs). */
  | { ok: true; step?: TriggerStep }
  /** `ambiguous`: several triggers and none named; `unknown`: the named step is not a trigger step of this revision. */
  | { ok: false; reason: 'ambiguous' | 'unknown'; triggers: TriggerStep[] };

export function triggerSteps(definition: WorkflowDefinition): TriggerStep[] {
  return Object.values(definition.steps)
    .filter((step) => step.type === 'trigger')
    .map((step) => ({ id: step.id, pluginType: step.pluginType ?? '' }));
}

/** The trigger a hand-run fires: the named one, else the (first) manual one, else the only one. */
export function handRunTrigger(definition: WorkflowDefinition, triggerId?: string): HandRun {
  const triggers = triggerSteps(definition);
  if (triggerId !== undefined) {
    const named = triggers.find((step) => step.id === triggerId);
    return named ? { ok: true, step: named } : { ok: false, reason: 'unknown', triggers };
  }
  const manual = triggers.find((step) => step.pluginType === 'manual');
  if (manual) return { ok: true, step: manual };
  if (triggers.length <= 1) return { ok: true, step: triggers[0] };
  return { ok: false, reason: 'ambiguous', triggers };
}

/**
 * The payload a hand-run hands the fired trigger step: a manual (or any other) trigger gets the inputs; a cron
 * trigger what a tick at `now` would get; a webhook trigger a request with no headers or query and the inputs as
 * its body, sent with its first configured method (POST when it names none or ANY).
 */
export function handRunPayload(
  definition: WorkflowDefinition,
  step: TriggerStep | undefined,
  inputs: Record<string, unknown>,
  now: Date,
): Record<string, unknown> {
  const config = step ? (definition.steps[step.id]?.config ?? {}) : {};
  if (step?.pluginType === 'cron') {
    return { firedAt: new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString(), schedule: config.schedule };
  }
  if (step?.pluginType === 'webhook') return { method: webhookMethod(config), headers: {}, query: {}, body: inputs };
  return inputs;
}

/**
 * The run inputs of a hand-run: the caller's; for a cron trigger also the tick's `firedAt` and `schedule`, as a
 * scheduled tick's run gets them (executions/prepare-scheduled.ts; the compatible engine reads them as
 * `workflow.inputs.firedAt`, `workflow.inputs.schedule`).
 */
export function handRunInputs(
  step: TriggerStep | undefined,
  payload: Record<string, unknown>,
  inputs: Record<string, unknown>,
): Record<string, unknown> {
  return step?.pluginType === 'cron' ? { ...inputs, firedAt: payload.firedAt, schedule: payload.schedule } : inputs;
}

function webhookMethod(config: Record<string, unknown>): string {
  const methods = Array.isArray(config.methods) ? config.methods : [config.method];
  const first = methods.find((method): method is string => typeof method === 'string' && method !== 'ANY');
  return first ?? 'POST';
}
