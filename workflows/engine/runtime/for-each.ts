/**
 * Explicit fan-out (`forEach`): one plugin call per element of an array,
 * sequential (optionally reducing) or parallel with `maxConcurrency`. The
 * element is `variables.<itemVariable>` and `inputs.<itemVariable>`
 * (`spreadItem` also merges its keys into the inputs). The step's own
 * `inputs` are resolved once, before the first iteration.
 *
 * Output: one item `{items, count, failed}` (+ `result` with `reduce`). A
 * failed iteration stops a sequential step and fails it; with
 * `continueOnError` the remaining iterations still run, then the step ends
 * `failed` (its output still carries `failed: n`) and leaves through its
 * failure route. In parallel a failed iteration leaves `{}` at its index,
 * counts in `failed` and the step completes (engine-reference §2).
 *
 * `reduce` (sequential only): `accumulator` names a run variable. It starts at
 * `initialValue`, each iteration reads it as `variables.<name>` and
 * `inputs.<name>`, and the iteration's value replaces it: what the plugin
 * returned (a code-exec script's `6` or `[2, 4]`, not the `{result: 6}` or the
 * items its output wraps them in), else its output. The final value is the
 * step's `result` and stays in `variables.<name>`.
 */
import type { StepDefinition } from '../definition';
import { evaluateExpression } from '../evaluate';
import { unwrapRaw } from '../expressions';
import { RUN_LIMIT_SETTINGS, runLimitsOf } from '../limits';
import { resolveInputs, type ResolvedInputs } from '../templates';
import type { Activation } from '../graph/walker';
import { followsRule } from '../engine-rules';
import { mapLimit } from './concurrency';
import { project } from './paths';
import { stepScope } from './context';
import type { Item, PluginCall, PluginResult, ScopeExtras, StepEnv } from './types';

const UNSAFE_NAMES = new Set(['__proto__', 'prototype', 'constructor']);

interface ForEachConfig {
  expression?: unknown;
  itemVariable?: string;
  indexVariable?: string;
  parallel?: boolean;
  maxConcurrency?: number;
  spreadItem?: boolean;
  reduce?: { initialValue?: unknown; accumulator?: string };
}

export async function runForEach(
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  signal: ScopeExtras['signal'],
  call: PluginCall,
): Promise<PluginResult> {
  const options = step.forEach as ForEachConfig;
  const scope = stepScope(env.ctx, { items: activation.items, item: activation.items[0], signal });
  const source = typeof options.expression === 'string' ? evaluateExpression(unwrapRaw(options.expression), scope) : options.expression;
  if (!Array.isArray(source)) {
    return {
      status: 'failure',
      error: { code: 'FOREACH_NOT_ARRAY', message: `forEach expression of step "${step.id}" did not yield an array`, retryable: false },
    };
  }
  const elements = source as unknown[];
  const limits = runLimitsOf(env.ctx.input);
  if (elements.length > limits.maxForEachElements) {
    return {
      status: 'failure',
      error: {
        code: 'FOREACH_LIMIT_EXCEEDED',
        message: `forEach of step "${step.id}" has ${elements.length} elements; at most ${limits.maxForEachElements} are allowed (${RUN_LIMIT_SETTINGS.maxForEachElements})`,
        retryable: false,
      },
    };
  }
  const itemVariable = options.itemVariable ?? 'item';
  const indexVariable = options.indexVariable ?? 'index';
  const base = step.inputs ? resolveInputs(step.inputs, scope) : { values: {}, deferred: [] };
  const continueOnError = step.errorHandling?.continueOnError === true;

  const accumulatorName = options.reduce && !options.parallel ? options.reduce.accumulator : undefined;
  if (accumulatorName !== undefined && (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(accumulatorName) || UNSAFE_NAMES.has(accumulatorName))) {
    // Revisions validated before the accumulator had to be a name.
    return {
      status: 'failure',
      error: {
        code: 'PLUGIN_CONFIG_INVALID',
        message: `forEach.reduce.accumulator of step "${step.id}" must name a variable`,
        retryable: false,
      },
    };
  }
  if (accumulatorName !== undefined) env.ctx.variables[accumulatorName] = options.reduce?.initialValue ?? null;

  const iterate = async (element: unknown, index: number): Promise<PluginResult> => {
    const spread =
      options.spreadItem && element !== null && typeof element === 'object' && !Array.isArray(element) ? (element as Item) : {};
    const accumulator = accumulatorName === undefined ? {} : { [accumulatorName]: env.ctx.variables[accumulatorName] };
    return call(env, step, activation, {
      items: activation.items,
      item: activation.items[0],
      itemIndex: index,
      signal,
      iteration: true,
      extraVariables: { [itemVariable]: element, [indexVariable]: index },
      extraInputs: iterationInputs(base, { [itemVariable]: element, [indexVariable]: index, ...accumulator, ...spread }),
      ...(accumulatorName === undefined ? {} : { returnValue: true }),
    });
  };

  // `outputProjection` trims each iteration's output (`outputs.items` holds the trimmed ones), as the compatible
  // engine applies it; runs of older rules trim the aggregate instead (./step-record.ts).
  const projection = followsRule(env.ctx.input, 'for-each-projects-iterations') ? step.outputProjection : undefined;
  const trim = (value: Item): Item => (projection && projection.length > 0 ? project(value, projection) : value);
  const outputs: Item[] = [];
  let failed = 0;
  if (options.parallel) {
    const limit = Math.min(Math.max(1, Number(options.maxConcurrency ?? 5) || 5), limits.maxParallelism);
    const results = await mapLimit(elements, limit, (element, index) => iterate(element, index).catch(asFailure));
    for (const result of results) {
      if (result.status === 'failure') failed += 1;
      outputs.push(result.status === 'failure' ? {} : trim(result.outputs ?? result.items?.[0] ?? {}));
    }
    return { status: 'success', items: [{ items: outputs, count: elements.length, failed }] };
  }

  let firstFailure: { index: number; error: NonNullable<PluginResult['error']> } | undefined;
  for (const [index, element] of elements.entries()) {
    const result = await iterate(element, index).catch(asFailure);
    if (result.status === 'failure') {
      if (!continueOnError) return result;
      failed += 1;
      firstFailure ??= { index, error: result.error ?? { code: 'STEP_FAILED', message: 'iteration failed' } };
      outputs.push({});
      continue;
    }
    const value = result.outputs ?? result.items?.[0] ?? {};
    outputs.push(trim(value));
    // The iteration's value: what the plugin returned (a code-exec number or list, not its {result} or items), else its output.
    if (accumulatorName !== undefined) env.ctx.variables[accumulatorName] = 'value' in result ? result.value : value;
  }
  const output: Item = { items: outputs, count: elements.length, failed };
  if (options.reduce) output.result = accumulatorName === undefined ? null : (env.ctx.variables[accumulatorName] ?? null);
  if (firstFailure) {
    // continueOnError ran every iteration; the step still failed, and says how often.
    const { index, error } = firstFailure;
    return {
      status: 'failure',
      items: [output],
      error: {
        ...error,
        message: `${failed} of ${elements.length} iterations failed; the first (index ${index}): ${error.message}`,
        retryable: false,
      },
    };
  }
  return { status: 'success', items: [output] };
}

/** The step's inputs with the iteration's keys on top; a key the iteration sets drops a template the activity would have placed there. */
function iterationInputs(base: ResolvedInputs, iteration: Record<string, unknown>): ResolvedInputs {
  return {
    values: { ...base.values, ...iteration },
    deferred: base.deferred.filter((entry) => !Object.hasOwn(iteration, entry.path[0])),
  };
}

function asFailure(error: unknown): PluginResult {
  const failure = error as { message?: string; cause?: { message?: string; type?: string } };
  return {
    status: 'failure',
    error: {
      code: failure.cause?.type ?? 'STEP_FAILED',
      message: failure.cause?.message ?? failure.message ?? 'iteration failed',
      retryable: false,
    },
  };
}
