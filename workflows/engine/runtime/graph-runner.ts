/**
 * Runs a whole execution: builds the topology, starts the fired trigger (and
 * any non-trigger entry steps), runs every activation the walker hands out —
 * concurrently, settling each as it ends — and resolves the definition's
 * `outputs` when the walk is over. Host-agnostic: the Temporal workflow
 * supplies the effects; tests supply fakes.
 */
import { evaluateExpression } from '../evaluate';
import { unwrapRaw } from '../expressions';
import { buildTopology, type Edge, type Topology } from '../graph/topology';
import { begin, createWalkerState, settle, type Activation, type Item, type Transition, type WalkerState } from '../graph/walker';
import { resolveTemplates } from '../templates';
import { createContext, seedVariables, stepScope } from './context';
import { runStep } from './step-runner';
import { toStepError } from './step-record';
import type { CarriedState, ExecutionInput, RuntimeContext, RuntimeEffects, StepEnv } from './types';

export interface ExecutionError {
  type: string;
  message: string;
  stepId?: string;
}

export interface ExecutionOutcome {
  status: 'completed' | 'failed' | 'continue';
  outputs: Record<string, unknown>;
  error?: ExecutionError;
  /** With `continue`: everything the next run (after continue-as-new) needs to go on. */
  carried?: CarriedState;
}

export interface RunOptions {
  /** A run to resume (the input of a continued-as-new workflow). */
  carried?: CarriedState;
  /** Asked at quiet points: true stops the walk with `continue` and its carried state. */
  shouldContinueAsNew?: () => boolean;
}

export interface ExecutionRun {
  ctx: RuntimeContext;
  topology: Topology;
  walker: WalkerState;
  /** Resolves when the walk is over. */
  done: Promise<ExecutionOutcome>;
}

export function startExecution(
  input: ExecutionInput,
  vars: Record<string, unknown>,
  effects: RuntimeEffects,
  options: RunOptions = {},
): ExecutionRun {
  const topology = buildTopology(input.definition);
  const carried = options.carried;
  const ctx: RuntimeContext = carried ? { input, ...carried.context } : createContext(input, vars, new Date(effects.now()).toISOString());
  const walker = carried?.walker ?? createWalkerState(topology);
  const env: StepEnv = { ctx, effects, topology };
  // A variable whose initialValue cannot be evaluated ends the run at its first transition, like a bad condition.
  let conditionError: ExecutionError | undefined = carried ? undefined : seedVariables(ctx);

  const condition = (edge: Edge): boolean => {
    const source = ctx.steps[edge.from];
    try {
      const scope = stepScope(ctx, { items: source?.items ?? [], item: source?.items[0] });
      return Boolean(evaluateExpression(unwrapRaw(String(edge.condition)), scope));
    } catch (error) {
      conditionError ??= {
        type: toStepError(error).code,
        message: `condition of connection ${edge.id}: ${toStepError(error).message}`,
        stepId: edge.from,
      };
      return false;
    }
  };

  /**
   * Steps skipped by dead-path elimination never run, but their record says so. Declared before
   * `done`: its executor runs at once, and the first transition may already skip steps (a trigger
   * that did not fire).
   */
  const recordSkip = (stepId: string) => {
    const at = new Date(effects.now()).toISOString();
    const previous = ctx.steps[stepId];
    ctx.steps[stepId] = { stepId, status: 'skipped', run: previous?.run ?? 0, items: [], outputs: {}, activePorts: [], completedAt: at };
    effects.onEvent({ type: 'step.skipped', stepId, at });
  };

  /** The definition's outputs once the walk is over. Declared before `done`, whose executor may end the walk at once. */
  const complete = (): ExecutionOutcome => {
    try {
      const scope = stepScope(ctx, { items: [] });
      const outputs = resolveTemplates(input.definition.outputs ?? {}, scope, { deferredRoots: new Set() }) as Record<string, unknown>;
      return { status: 'completed', outputs };
    } catch (error) {
      return { status: 'failed', outputs: {}, error: { type: toStepError(error).code, message: `outputs: ${toStepError(error).message}` } };
    }
  };

  const done = new Promise<ExecutionOutcome>((resolve) => {
    let inFlight = 0;
    let finished = false;
    const finish = (outcome: ExecutionOutcome) => {
      if (finished) return;
      finished = true;
      resolve(outcome);
    };
    const absorb = (transition: Transition) => {
      if (conditionError) return finish({ status: 'failed', outputs: {}, error: conditionError });
      if (transition.failure) {
        const record = ctx.steps[transition.failure.stepId];
        const error =
          transition.failure.code === 'STEP_FAILED' && record?.error
            ? { type: record.error.code, message: record.error.message, stepId: transition.failure.stepId }
            : { type: transition.failure.code, message: transition.failure.message, stepId: transition.failure.stepId };
        return finish({ status: 'failed', outputs: {}, error });
      }
      for (const stepId of transition.skipped) recordSkip(stepId);
      // A quiet point (nothing in flight, only steps about to start): the place to continue as new if asked.
      if (inFlight === 0 && transition.ready.length > 0 && options.shouldContinueAsNew?.()) {
        const { input: _input, ...context } = ctx;
        return finish({ status: 'continue', outputs: {}, carried: { context, walker, pending: transition.ready } });
      }
      // Counted before any starts: a step launched first sees its siblings in flight (`env.alone`).
      inFlight += transition.ready.length;
      for (const activation of transition.ready) launch(activation);
      if (inFlight === 0) finish(complete());
    };
    env.alone = () => inFlight === 1;
    const launch = (activation: Activation) => {
      runStep(env, activation).then(
        ({ outcome }) => {
          inFlight -= 1;
          if (!finished) absorb(settle(topology, walker, activation.stepId, outcome, condition));
        },
        (error: unknown) => {
          inFlight -= 1;
          finish({
            status: 'failed',
            outputs: {},
            error: { type: toStepError(error).code, message: toStepError(error).message, stepId: activation.stepId },
          });
        },
      );
    };
    if (carried) return absorb({ ready: carried.pending, skipped: [] });
    const starts = startsFor(input, topology);
    // Nothing would run (a start that names no trigger of this revision): say so rather than complete an empty walk.
    if (Object.keys(starts).length === 0) return finish({ status: 'failed', outputs: {}, error: noTriggerFired(input, topology) });
    absorb(begin(topology, walker, starts, condition));
  });

  return { ctx, topology, walker, done };
}

/** The fired trigger step starts with the payload; other trigger steps are skipped; plain entry steps start with the inputs. */
function startsFor(input: ExecutionInput, topology: Topology): Record<string, Item[]> {
  const starts: Record<string, Item[]> = {};
  const steps = input.definition.steps;
  const triggerEntries = topology.entries.filter((id) => steps[id].type === 'trigger');
  const fired =
    input.trigger.stepId !== undefined && triggerEntries.includes(input.trigger.stepId)
      ? input.trigger.stepId
      : input.trigger.source === 'manual' || input.trigger.source === 'sub-workflow'
        ? triggerEntries.find((id) => steps[id].pluginType === 'manual')
        : undefined;
  if (fired) starts[fired] = [input.trigger.payload];
  for (const id of topology.entries) {
    if (steps[id].type !== 'trigger') starts[id] = [{ ...input.inputs }];
  }
  return starts;
}

/** Why a run started nothing: the trigger its start names is not one of the revision's trigger steps, or it names none. */
function noTriggerFired(input: ExecutionInput, topology: Topology): ExecutionError {
  const steps = input.definition.steps;
  const triggers = topology.entries
    .filter((id) => steps[id].type === 'trigger')
    .map((id) => `${id} (${steps[id].pluginType ?? 'trigger'})`);
  const named = input.trigger.stepId !== undefined ? `trigger step "${input.trigger.stepId}"` : 'no trigger step';
  return {
    type: 'NO_TRIGGER_FIRED',
    message: `this ${input.trigger.source} start names ${named}, and no step can start without one (trigger steps: ${triggers.join(', ') || 'none'})`,
  };
}
