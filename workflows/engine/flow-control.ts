/**
 * Flow control as a definition (or an alias) writes it: `concurrency`, `throttle` or `debounce` at the top
 * level (docs/definitions.md, "Flow control"). Pure: the validator checks the values at publish, and the
 * start path (executions/flow/) reads the policy from the definition already in hand and renders its key
 * from the run's inputs and trigger, with the engine's own bounded template evaluation.
 */
import type { DefinitionIssue } from './definition';
import { stringify } from './evaluate';
import { parseExpression, templateSources } from './expressions';
import { isObject } from './normalize';
import { join } from './pointer';
import { parseDuration } from './durations';
import { resolveTemplates } from './templates';
import { chainsOf } from './reference-chains';

export type OnLimit = 'queue' | 'cancel-in-progress' | 'refuse';
export const ON_LIMIT_VALUES: readonly OnLimit[] = ['queue', 'cancel-in-progress', 'refuse'];

/** The one flow-control kind a run is under, with its values resolved (durations in ms, defaults filled). */
export type FlowPolicy =
  | { kind: 'concurrency'; key?: string; limit: number; onLimit: OnLimit; maxQueued?: number }
  | { kind: 'throttle'; key?: string; limit: number; periodMs: number }
  | { kind: 'debounce'; key?: string; periodMs: number; maxWaitMs?: number };

export const FLOW_KINDS = ['concurrency', 'throttle', 'debounce'] as const;
/** Longest rendered key; a longer one refuses the start (a cut key could merge two keys into one). */
export const MAX_FLOW_KEY_LENGTH = 256;
/** Ceilings of the values a definition may write. */
export const MAX_FLOW_LIMIT = 1000;
export const MAX_FLOW_PERIOD_MS = 7 * 86_400_000;
const MAX_KEY_TEMPLATE_LENGTH = 1024;
/** The roots a key may read: what the run starts with, nothing a step computes. */
const KEY_ROOTS = new Set(['workflow', 'trigger', 'execution']);

/** The flow-control problems of a definition (or an alias's `flowControl`), at `pathOf(key)`. */
export function flowControlIssues(source: Record<string, unknown>, pathOf: (key: string) => string): DefinitionIssue[] {
  const issues: DefinitionIssue[] = [];
  const present = FLOW_KINDS.filter((kind) => source[kind] !== undefined && source[kind] !== null);
  if (present.length > 1)
    issues.push({
      path: pathOf(present[1]),
      message: `only one of concurrency, throttle and debounce may be set (found ${present.join(', ')})`,
    });
  for (const kind of present) {
    const value = source[kind];
    const at = (field?: string) => (field === undefined ? pathOf(kind) : join(pathOf(kind), field));
    if (!isObject(value)) {
      issues.push({ path: at(), message: 'must be an object' });
      continue;
    }
    const allowed =
      kind === 'concurrency'
        ? ['key', 'limit', 'onLimit', 'maxQueued']
        : kind === 'throttle'
          ? ['key', 'limit', 'period']
          : ['key', 'period', 'maxWait'];
    for (const field of Object.keys(value))
      if (!allowed.includes(field)) issues.push({ path: at(field), message: `is not a ${kind} setting (${allowed.join(', ')})` });
    if (value.key !== undefined) keyIssues(value.key, at('key'), issues);
    if (kind !== 'debounce') countIssue(value.limit, at('limit'), kind === 'throttle', 1, issues);
    if (kind === 'concurrency') {
      if (value.onLimit !== undefined && !ON_LIMIT_VALUES.includes(value.onLimit as OnLimit))
        issues.push({ path: at('onLimit'), message: `must be one of ${ON_LIMIT_VALUES.join(', ')}` });
      if (value.maxQueued !== undefined) {
        countIssue(value.maxQueued, at('maxQueued'), false, 0, issues);
        if ((value.onLimit ?? 'queue') !== 'queue') issues.push({ path: at('maxQueued'), message: 'applies only with onLimit: queue' });
      }
    } else {
      periodIssue(value.period, at('period'), true, issues);
      if (kind === 'debounce' && value.maxWait !== undefined) {
        periodIssue(value.maxWait, at('maxWait'), false, issues);
        const period = parseDuration(value.period);
        const maxWait = parseDuration(value.maxWait);
        if (period !== undefined && maxWait !== undefined && maxWait < period)
          issues.push({ path: at('maxWait'), message: 'must be at least the period' });
      }
    }
  }
  return issues;
}

function countIssue(value: unknown, path: string, required: boolean, min: number, issues: DefinitionIssue[]): void {
  if (value === undefined) {
    if (required) issues.push({ path, message: 'is required' });
    return;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_FLOW_LIMIT)
    issues.push({ path, message: `must be an integer from ${min} to ${MAX_FLOW_LIMIT}` });
}

function periodIssue(value: unknown, path: string, required: boolean, issues: DefinitionIssue[]): void {
  if (value === undefined) {
    if (required) issues.push({ path, message: 'is required (a duration such as "10s")' });
    return;
  }
  const ms = parseDuration(value);
  if (ms === undefined || ms < 1000 || ms > MAX_FLOW_PERIOD_MS)
    issues.push({ path, message: 'must be a duration from 1s to 7d (such as "10s", "5m")' });
}

function keyIssues(value: unknown, path: string, issues: DefinitionIssue[]): void {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_KEY_TEMPLATE_LENGTH) {
    issues.push({ path, message: `must be a non-empty string of at most ${MAX_KEY_TEMPLATE_LENGTH} characters` });
    return;
  }
  const { sources, error } = templateSources(value);
  if (error) {
    issues.push({ path, message: error });
    return;
  }
  for (const source of sources) {
    const parsed = parseExpression(source);
    if (!parsed.ast) {
      issues.push({ path, message: `expression "${source.trim()}" does not parse: ${parsed.error ?? 'invalid'}` });
      continue;
    }
    for (const chain of chainsOf(parsed.ast))
      if (!KEY_ROOTS.has(chain.root))
        issues.push({
          path,
          message: `may read only workflow.inputs, trigger and execution (what a run starts with), not "${chain.root}"`,
        });
  }
}

/**
 * The policy a run is under: the alias's flow control when it sets one (its `concurrency`, `throttle` or
 * `debounce` replaces the definition's), else the definition's; undefined without any (the start path then
 * does nothing more). Values are assumed valid (checked at publish).
 */
export function flowPolicyOf(definition: Record<string, unknown>, aliasOverride?: Record<string, unknown> | null): FlowPolicy | undefined {
  const source = aliasOverride && FLOW_KINDS.some((kind) => isObject(aliasOverride[kind])) ? aliasOverride : definition;
  const key = (value: Record<string, unknown>) => (typeof value.key === 'string' ? { key: value.key } : {});
  if (isObject(source.concurrency)) {
    const value = source.concurrency;
    return {
      kind: 'concurrency',
      ...key(value),
      limit: typeof value.limit === 'number' ? value.limit : 1,
      onLimit: (value.onLimit as OnLimit | undefined) ?? 'queue',
      ...(typeof value.maxQueued === 'number' ? { maxQueued: value.maxQueued } : {}),
    };
  }
  if (isObject(source.throttle)) {
    const value = source.throttle;
    return { kind: 'throttle', ...key(value), limit: value.limit as number, periodMs: parseDuration(value.period) ?? 1000 };
  }
  if (isObject(source.debounce)) {
    const value = source.debounce;
    const maxWaitMs = parseDuration(value.maxWait);
    return {
      kind: 'debounce',
      ...key(value),
      periodMs: parseDuration(value.period) ?? 1000,
      ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
    };
  }
  return undefined;
}

/** What a key reads: the run's inputs and trigger, and which execution of which workflow it is. */
export interface FlowKeyScope {
  inputs: Record<string, unknown>;
  trigger: { source: string; payload?: unknown; receivedAt?: string };
  workflowId: string;
  workflowKey?: string | null;
  alias?: string | null;
}

/** The rendered key (absent template: one key for the workflow, `''`); throws Error when it cannot render or is too long. */
export function renderFlowKey(template: string | undefined, scope: FlowKeyScope): string {
  if (template === undefined) return '';
  const rendered = resolveTemplates(template, {
    workflow: { inputs: scope.inputs, id: scope.workflowId, key: scope.workflowKey ?? null },
    trigger: scope.trigger,
    execution: { workflowId: scope.workflowId, alias: scope.alias ?? null },
  });
  const text = typeof rendered === 'string' ? rendered : stringify(rendered);
  if (text.length > MAX_FLOW_KEY_LENGTH)
    throw new Error(`the flow-control key renders to ${text.length} characters; at most ${MAX_FLOW_KEY_LENGTH}`);
  return text;
}
