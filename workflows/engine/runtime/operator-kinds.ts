/**
 * What the runtime does for the kinds an operator's plugin may declare
 * (docs/plugins.md). The workflow knows an operator's plugin only by its pin
 * in the revision (the kit: by the descriptor of the stub it runs), and the
 * pin names a kind only when the plugin declares one, so steps of plain
 * modules, and every history recorded before kinds existed, run as before.
 *
 * - A decider's call (an activity) answers which of its ports are active; the
 *   step passes the items it got to them, as `conditional` and `case` do, and
 *   its outputs are what the call returned plus `matchedPort` and `activePorts`.
 * - A two-phase wait's call does its side effect and names the signal; the
 *   step then parks on it in the workflow exactly as `signal-wait` does (its
 *   config's `timeout`, `onTimeout` and `defaultValue`; the `timeout` port),
 *   its output the wait's over what the side effect returned.
 * - Per-step state (`nodeState`): every call of the step gets the state its
 *   previous call in the execution returned (activity-call's `nodeContext` path).
 *
 * A built-in plugin is never read here: a kit stub named like one keeps the
 * built-in's behaviour.
 */
import type { StepDefinition } from '../definition';
import type { PluginKind } from '../plugins/descriptor';
import { isBuiltInPlugin, pinnedPluginOf } from '../plugins';
import { failure } from '../inline/inline-plugin';
import { parkOnSignal } from '../inline/signal-wait';
import { declaredAnswer } from '../inline/declared-answer';
import type { Item, PluginResult, StepEnv } from './types';

export interface OperatorTraits {
  kind: PluginKind;
  nodeState: boolean;
  twoPhaseWait: boolean;
}

/** Longest signal name and correlation key a wait may use (what the API's signal routes accept). */
const MAX_SIGNAL_NAME = 200;
const MAX_CORRELATION_KEY = 500;
const MAX_SIGNAL_NAMES = 16;

/** The kind and features of an operator's plugin a step runs (undefined for a built-in, or a plugin the revision did not pin). */
export function operatorTraitsOf(env: StepEnv, pluginType: string): OperatorTraits | undefined {
  if (isBuiltInPlugin(pluginType)) return undefined;
  const plugin = env.effects.hostPlugin?.(pluginType) ?? pinnedPluginOf(env.ctx.input.definition, pluginType);
  if (!plugin) return undefined;
  return { kind: plugin.kind ?? 'module', nodeState: plugin.nodeState === true, twoPhaseWait: plugin.twoPhaseWait === true };
}

/** A decider's answer as its step's result: the items it got, to the ports it named. */
export function deciderResult(pluginType: string, result: PluginResult, items: Item[]): PluginResult {
  if (result.status !== 'success') return result;
  const ports = result.activePorts ?? [];
  if (ports.length === 0)
    return failure('PLUGIN_RESULT_INVALID', `decider "${pluginType}" answered no port: it must return activePorts (one or more)`);
  return {
    status: 'success',
    items,
    outputs: { ...(result.outputs ?? {}), matchedPort: ports[0], activePorts: [...ports] },
    activePorts: [...ports],
  };
}

/** A two-phase wait, its side effect done: parks on the signal the call named, as signal-wait does. */
export async function parkAfterSideEffect(
  env: StepEnv,
  step: StepDefinition,
  pluginType: string,
  config: Record<string, unknown>,
  result: PluginResult,
): Promise<PluginResult> {
  if (result.status !== 'success') return result;
  const wait = checkedWait(pluginType, result.wait);
  if ('error' in wait) return wait.error;
  const base: Item = result.items?.[0] ?? result.outputs ?? {};
  // Who may answer and what, declared under the step's `answer` (TWO_PHASE_WAIT_SETTINGS), as a signal-wait declares it.
  const declared =
    config.answer !== null && typeof config.answer === 'object' && !Array.isArray(config.answer)
      ? declaredAnswer(config.answer as Record<string, unknown>)
      : undefined;
  if (declared !== undefined && 'problem' in declared)
    return failure('PLUGIN_CONFIG_INVALID', `two-phase wait "${pluginType}": answer ${declared.problem}`);
  const hasPortEdge = (port: string) => env.topology.outgoing[step.id].some((edgeId) => env.topology.edges[edgeId].sourcePort === port);
  return parkOnSignal(
    { plugin: pluginType, stepId: step.id, names: wait.names, correlationKey: wait.correlationKey, config, base, answer: declared },
    { ctx: env.ctx, effects: env.effects, hasPortEdge },
  );
}

/** The signal a two-phase wait's call named (its data), or why it cannot be waited on. */
function checkedWait(pluginType: string, wait: unknown): { names: string[]; correlationKey?: string } | { error: PluginResult } {
  const invalid = (problem: string) => ({
    error: failure('PLUGIN_RESULT_INVALID', `two-phase wait "${pluginType}" ${problem}`),
  });
  if (wait === null || typeof wait !== 'object' || Array.isArray(wait))
    return invalid('returned no wait: it must return wait: {signalName, correlationKey?}');
  const { signalName, correlationKey } = wait as Record<string, unknown>;
  const names = Array.isArray(signalName) ? signalName : [signalName];
  const isName = (name: unknown): name is string => typeof name === 'string' && name !== '' && name.length <= MAX_SIGNAL_NAME;
  if (names.length === 0 || names.length > MAX_SIGNAL_NAMES || !names.every(isName))
    return invalid(
      `returned a wait whose signalName is not a name (1 to ${MAX_SIGNAL_NAME} characters) or a list of 1 to ${MAX_SIGNAL_NAMES} names`,
    );
  if (correlationKey === undefined || correlationKey === null) return { names };
  if (typeof correlationKey !== 'string' || correlationKey === '' || correlationKey.length > MAX_CORRELATION_KEY)
    return invalid(`returned a wait whose correlationKey is not a string of 1 to ${MAX_CORRELATION_KEY} characters`);
  return { names, correlationKey };
}
