/**
 * Step-level `loop` (engine-reference §1): the step runs repeatedly within
 * one activation.
 *
 * - `loop.forEach` (an expression yielding an array): one sequential run per
 *   element, through the `forEach` machinery; the element is
 *   `variables.<itemName>` and `inputs.<itemName>` (default `item`), its index
 *   `variables.<indexName>` (default `index`).
 * - `loop.while` (an expression): evaluated before every run (with the run's
 *   index as `variables.<indexName>`), the step runs while it is truthy. Each run sees its index as `variables.<indexName>`
 *   and the previous run's output as `steps.<id>.outputs`; its `inputs` are
 *   resolved again every time, so they see the variables as they are now.
 *
 * A loop runs at most `maxIterations` times (default and ceiling
 * `MAX_LOOP_ITERATIONS`, the same 1,000 as the runaway guard): a `forEach`
 * array longer than that, or a `while` still true after that many runs, fails
 * the step with `LOOP_LIMIT_EXCEEDED` rather than stopping silently.
 *
 * Output: one item `{items, count, failed}` like `forEach` (`items` holds
 * each run's output in order). A failed run fails the step, unless
 * `errorHandling.continueOnError` is set (then it counts in `failed`).
 */
import type { StepDefinition } from '../definition';
import { evaluateExpression, isTruthy } from '../evaluate';
import { unwrapRaw } from '../expressions';
import { MAX_STEP_RUNS, type Activation } from '../graph/walker';
import { stepScope } from './context';
import { runForEach } from './for-each';
import type { Item, PluginCall, PluginResult, ScopeExtras, StepEnv } from './types';

export const MAX_LOOP_ITERATIONS = MAX_STEP_RUNS;

interface LoopConfig {
  forEach?: unknown;
  while?: unknown;
  maxIterations?: number;
  itemName?: string;
  indexName?: string;
}

export async function runLoop(
  env: StepEnv,
  step: StepDefinition,
  activation: Activation,
  signal: ScopeExtras['signal'],
  call: PluginCall,
): Promise<PluginResult> {
  const loop = step.loop as LoopConfig;
  const cap = Math.min(typeof loop.maxIterations === 'number' ? loop.maxIterations : MAX_LOOP_ITERATIONS, MAX_LOOP_ITERATIONS);
  const itemName = loop.itemName ?? 'item';
  const indexName = loop.indexName ?? 'index';
  const scope = () => stepScope(env.ctx, { items: activation.items, item: activation.items[0], signal });

  if (loop.forEach !== undefined) {
    const source = typeof loop.forEach === 'string' ? evaluateExpression(unwrapRaw(loop.forEach), scope()) : loop.forEach;
    if (!Array.isArray(source)) return loopFailure('FOREACH_NOT_ARRAY', `loop.forEach of step "${step.id}" did not yield an array`);
    if (source.length > cap) return tooMany(step, `has ${source.length} elements`, cap);
    const asForEach: StepDefinition = {
      ...step,
      loop: undefined,
      // A loop step's projection trims its whole output, as before (the step runner applies it).
      outputProjection: undefined,
      forEach: { expression: source, itemVariable: itemName, indexVariable: indexName },
    };
    return runForEach(env, asForEach, activation, signal, call);
  }

  const condition = loop.while;
  const continueOnError = step.errorHandling?.continueOnError === true;
  const record = env.ctx.steps[step.id];
  const outputs: Item[] = [];
  let failed = 0;
  for (let index = 0; ; index += 1) {
    const conditionScope = { ...scope(), variables: { ...env.ctx.variables, [indexName]: index } };
    const goOn = typeof condition === 'string' ? evaluateExpression(unwrapRaw(condition), conditionScope) : condition;
    if (!isTruthy(goOn)) break;
    if (index >= cap) return tooMany(step, `is still true after ${cap} runs`, cap);
    const result = await call(env, step, activation, {
      items: activation.items,
      item: activation.items[0],
      itemIndex: index,
      signal,
      extraVariables: { [indexName]: index },
    });
    if (result.status === 'failure') {
      if (!continueOnError) return result;
      failed += 1;
      outputs.push({});
      continue;
    }
    const value = result.outputs ?? result.items?.[0] ?? {};
    outputs.push(value);
    // The next condition (and the next run) read this run's output as steps.<id>.outputs.
    record.outputs = value;
    record.items = result.items ?? [value];
  }
  return { status: 'success', items: [{ items: outputs, count: outputs.length, failed }] };
}

function tooMany(step: StepDefinition, what: string, cap: number): PluginResult {
  const form = (step.loop as LoopConfig).forEach !== undefined ? 'loop.forEach' : 'loop.while';
  return loopFailure(
    'LOOP_LIMIT_EXCEEDED',
    `${form} of step "${step.id}" ${what}; at most ${cap} iterations are allowed (loop.maxIterations)`,
  );
}

function loopFailure(code: string, message: string): PluginResult {
  return { status: 'failure', error: { code, message, retryable: false } };
}
