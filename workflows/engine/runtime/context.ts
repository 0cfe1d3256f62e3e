/**
 * The mutable state of one execution inside the workflow (`RuntimeContext`,
 * declared with the other runtime shapes in ./types): creating it, and the
 * scope a step's expressions read from it.
 */
import { withScopeRules } from '../engine-rules';
import type { EvaluationScope } from '../evaluate';
import { resolveTemplates } from '../templates';
import type { ExecutionInput, RuntimeContext, ScopeExtras } from './types';

export function createContext(input: ExecutionInput, vars: Record<string, unknown>, startedAt: string): RuntimeContext {
  const variables: Record<string, unknown> = {};
  for (const [name, declaration] of Object.entries(input.definition.variables ?? {})) {
    const initial =
      declaration !== null && typeof declaration === 'object' ? (declaration as Record<string, unknown>).initialValue : undefined;
    variables[name] = initial === undefined ? null : structuredCloneJson(initial);
  }
  return { input, vars, variables, steps: {}, nodeContext: {}, signals: {}, startedAt };
}

/**
 * Resolves the templates in the variables' `initialValue`s (`vars.*`,
 * `workflow.inputs.*`, `execution.*`, earlier variables; publish refuses
 * `secrets.*` there). Returns the failure that ends the run before any step
 * when one cannot be evaluated.
 */
export function seedVariables(ctx: RuntimeContext): { type: string; message: string } | undefined {
  const scope = stepScope(ctx, { items: [] });
  for (const [name, value] of Object.entries(ctx.variables)) {
    try {
      ctx.variables[name] = resolveTemplates(value, scope);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return { type: 'VARIABLE_INITIAL_VALUE_INVALID', message: `initialValue of variable "${name}": ${message}` };
    }
  }
  return undefined;
}

/** The roots an expression of a step can read (engine-reference §3). `secrets` is absent on purpose. */
export function stepScope(ctx: RuntimeContext, extras: ScopeExtras): EvaluationScope {
  const { input } = ctx;
  const steps: Record<string, unknown> = {};
  for (const [id, record] of Object.entries(ctx.steps)) {
    steps[id] = { outputs: record.outputs, items: record.items, status: record.status, error: record.error ?? null };
  }
  // The run's rules travel with the scope, so its expressions evaluate as they did when it started (../engine-rules).
  const scope = {
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
  return withScopeRules(scope, input);
}

/** Deep copy of JSON data (the sandbox-safe subset of structuredClone). */
export function structuredCloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
