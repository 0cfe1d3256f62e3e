/**
 * The mutable state of one execution inside the workflow: step records,
 * run variables, per-step node context (split-in-batches), and the values of
 * `vars.*` resolved at start. Plain data: it is carried across
 * continue-as-new and answered by the state query.
 */
import type { EvaluationScope } from '../evaluate';
import type { Item } from '../graph/walker';
import type { ExecutionInput, StepRecord, WaitResult } from './types';

export interface RuntimeContext {
  input: ExecutionInput;
  /** `vars.*` values resolved when the execution started (never secrets). */
  vars: Record<string, unknown>;
  /** Run variables (`variables.*`), seeded from `initialValue`. */
  variables: Record<string, unknown>;
  steps: Record<string, StepRecord>;
  /** Per-step state that lives for the whole execution. */
  nodeContext: Record<string, Record<string, unknown>>;
  /** Last signal a wait step received, keyed by the wait step id. */
  signals: Record<string, WaitResult>;
  startedAt: string;
}

export function createContext(input: ExecutionInput, vars: Record<string, unknown>, startedAt: string): RuntimeContext {
  const variables: Record<string, unknown> = {};
  for (const [name, declaration] of Object.entries(input.definition.variables ?? {})) {
    const initial = declaration !== null && typeof declaration === 'object' ? (declaration as Record<string, unknown>).initialValue : undefined;
    variables[name] = initial === undefined ? null : structuredCloneJson(initial);
  }
  return { input, vars, variables, steps: {}, nodeContext: {}, signals: {}, startedAt };
}

export interface ScopeExtras {
  inputs?: Record<string, unknown>;
  items: Item[];
  item?: Item;
  itemIndex?: number;
  /** The wait step that released this step, when it follows one. */
  signal?: WaitResult & { name?: string };
}

/** The roots an expression of a step can read (engine-reference §3). `secrets` is absent on purpose. */
export function stepScope(ctx: RuntimeContext, extras: ScopeExtras): EvaluationScope {
  const { input } = ctx;
  const steps: Record<string, unknown> = {};
  for (const [id, record] of Object.entries(ctx.steps)) {
    steps[id] = { outputs: record.outputs, items: record.items, status: record.status, error: record.error ?? null };
  }
  return {
    workflow: { inputs: input.inputs, variables: ctx.variables, id: input.workflowId, key: input.workflowKey ?? null },
    variables: ctx.variables,
    steps,
    execution: {
      id: input.executionId,
      workflowId: input.workflowId,
      revision: input.revision,
      alias: input.alias ?? null,
      startedAt: ctx.startedAt,
      correlationKey: input.correlationKey ?? null,
      organizationId: input.organizationId,
    },
    trigger: { source: input.trigger.source, payload: input.trigger.payload, receivedAt: input.trigger.receivedAt },
    signal: extras.signal ? { payload: extras.signal.payload, name: extras.signal.name, deliveredAt: extras.signal.receivedAt } : null,
    vars: ctx.vars,
    inputs: extras.inputs ?? {},
    $item: extras.item ?? null,
    $items: extras.items,
    $itemIndex: extras.itemIndex ?? 0,
    $itemsLength: extras.items.length,
  };
}

/** Deep copy of JSON data (the sandbox-safe subset of structuredClone). */
export function structuredCloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
