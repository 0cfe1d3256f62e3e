/**
 * The one place that says which rules a run follows, so a run started under older rules replays exactly as it
 * ran. Each change to what a run does (its commands in the Temporal history, or what its steps compute) is a
 * named rule with the rule number it arrived in, as Temporal names a change with `patched('id')`; the code asks
 * `followsRule(input, 'name')` instead of comparing numbers. A new run is stamped with {@link ENGINE_RULES}
 * (executions/workflow-input.ts, the kit's runWorkflow); an input without `engineRules` is a run of rules 1.
 *
 * Adding a rule: raise ENGINE_RULES, add a row below with the new number and what it changes, and ask for it by
 * name where the behaviour forks (keeping the older branch as it was). docs/architecture.md, "Engine rules".
 */
import type { RunLimits } from './limits';

/** The rules a run started now follows (ExecutionInput.engineRules). */
export const ENGINE_RULES = 6;

/** What a rule reads of the execution input. */
export interface RulesHolder {
  engineRules?: number;
  limits?: Pick<RunLimits, 'lightStepRule'>;
}

interface RuleRow {
  /** The first rule number that follows it. */
  since: number;
  /** An older run that followed it anyway, told by a field of its input (rules from before the numbering covered it). */
  alsoWhen?: (input: RulesHolder) => boolean;
}

const RULES = {
  /** No local activity resolving variables when the definition reads none and declares no secret (workflows/execution-vars.ts). */
  'vars-call-only-when-needed': { since: 2 },
  /** The run's last batch of records is written with its end, one local activity instead of two (workflows/execution.ts). */
  'last-records-with-end': { since: 2 },
  /** Records are written once the run is blocked, not at the first pass of its conditions (workflows/execution-persistence.ts). */
  'records-when-blocked': { since: 3 },
  /**
   * A step without a `timeout` of its own is compared with the light-step ceiling by its plugin's bound on the call
   * (an http-request's config `timeout`), not the 5-minute default (runtime/activity-call.ts). Runs of rules 3 and
   * before that followed it carry `limits.lightStepRule: 'call-timeout'`.
   */
  'light-step-by-call-timeout': { since: 4, alsoWhen: (input) => input.limits?.lightStepRule === 'call-timeout' },
  /** `<`, `<=`, `>`, `>=` with a null or undefined side are false; before, null read as 0 and undefined failed the step (evaluate.ts). */
  'ordering-with-missing-is-false': { since: 4 },
  /**
   * `split-in-batches`: when the loop body gives back other than one item per item sent (a summary per batch), `done`
   * reports the items sent; its output has `totalProcessed` (inline/split-in-batches.ts).
   */
  'batches-report-items-sent': { since: 4 },
  /** `outputProjection` on a `forEach` step trims each iteration's output, not the aggregate (runtime/for-each.ts). */
  'for-each-projects-iterations': { since: 4 },
  /**
   * A `forEach` iteration is retried under the step's retry policy by the engine itself (durable timers), a failure
   * result marked `retryable: true` as a thrown failure; before, only the host retried thrown failures (runtime/resolve-call.ts).
   */
  'for-each-engine-retries': { since: 4 },
  /** A running fan-out's progress is written when another tenth of its items is done, so `/state` shows it live (workflows/execution-persistence.ts). */
  'fan-out-progress-live': { since: 4 },
  /**
   * A wait's id is the run's id and the wait's number in it, not a random uuid: the same on every replay, whatever
   * else draws on the run's random numbers (tracing's span ids), so the approval gate's answer finds its wait
   * (workflows/execution-waits.ts).
   */
  'wait-ids-by-sequence': { since: 4 },
  /**
   * When a light step's successful call ends the run (no step after it, nothing else in flight, no declared
   * outputs), its local activity writes the step's last records and the run's end, and the workflow completes
   * without a finish local activity of its own (runtime/last-step-end.ts, workflows/execution.ts).
   */
  'end-with-last-light-step': { since: 5 },
  /**
   * "Blocked" (rule 3) is judged over whole passes of the run's microtasks, not single ticks: the SDK resolves a
   * condition that holds at once without a pass, so a step between two awaits looked blocked, and a graph of pure
   * steps was written mid-way and again with its end (workflows/execution-persistence.ts).
   */
  'records-when-drained': { since: 6 },
} satisfies Record<string, RuleRow>;

export type EngineRule = keyof typeof RULES;

/** The rule number a run follows (1 for an input from before the numbering). */
export function rulesNumberOf(input: RulesHolder): number {
  return input.engineRules ?? 1;
}

/** Whether the run follows `rule`. */
export function followsRule(input: RulesHolder, rule: EngineRule): boolean {
  const row: RuleRow = RULES[rule];
  return rulesNumberOf(input) >= row.since || row.alsoWhen?.(input) === true;
}

/** Every rule with the number it arrived in (docs and tests). */
export function engineRuleTable(): Array<{ rule: EngineRule; since: number }> {
  return (Object.keys(RULES) as EngineRule[]).map((rule) => ({ rule, since: RULES[rule].since }));
}

/**
 * An expression scope carries the rules of the run it belongs to under a symbol key (no expression can name it,
 * JSON never carries it); a scope without one (validation, an activity's deferred templates) follows the newest.
 */
const SCOPE_RULES: unique symbol = Symbol('engine rules');

/** Marks a freshly built scope with the run's rules (the same object, returned). */
export function withScopeRules<T extends object>(scope: T, input: RulesHolder): T {
  (scope as { [SCOPE_RULES]?: number })[SCOPE_RULES] = rulesNumberOf(input);
  return scope;
}

/** Whether an expression evaluated in `scope` follows `rule`. */
export function scopeFollowsRule(scope: object, rule: EngineRule): boolean {
  const number = (scope as { [SCOPE_RULES]?: number })[SCOPE_RULES];
  return number === undefined || number >= RULES[rule].since;
}
