/**
 * Runs an operator's plugin inside the execution activity, as trusted
 * operator code held to the same rules as the built-ins: its network calls go
 * through the egress policy, its logs and result pass the caller's secret
 * redaction and output cap, and it runs only at a version compatible with
 * the one the step's revision was validated against.
 */
import { ApplicationFailure } from '@temporalio/common';
import type { RequestInit, Response } from 'undici';
import { isCompatibleVersion, type ActivityCall, type PluginResult } from '../../../workflows/engine';
import { egressDenial } from '../../egress/egress-fetch';
import type { EgressDenied, EgressPolicy } from '../../egress/policy';
import { RedirectRefused, egressFetchFollowing } from '../../egress/redirects';
import { withDeadline } from '../deadline';
import type { PluginContext, PluginRun } from '../plugin-context';
import type { OperatorPlugin, OperatorPlugins } from './load-plugins';
import type { PluginExecute, PluginExecuteResult, PluginLogger } from './plugin-api';

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
/** Log lines one call keeps (they travel back in the activity result): past this, one notice and silence. */
const MAX_LOG_LINES = 1000;
const MAX_LOG_LINE_CHARS = 8 * 1024;

/**
 * The run of the operator plugin a call names, if this worker loaded one of
 * that name; a step pinned to a version this worker cannot honour fails
 * without retries (PLUGIN_VERSION_MISMATCH, or PLUGIN_NOT_AVAILABLE when the
 * plugin is not loaded here at all).
 */
export function operatorPluginRun(plugins: OperatorPlugins | undefined, call: ActivityCall): PluginRun | undefined {
  const plugin = plugins?.byName.get(call.pluginType);
  const pinned = call.pluginVersion;
  if (!plugin) {
    if (pinned === undefined) return undefined;
    throw ApplicationFailure.nonRetryable(
      `plugin "${call.pluginType}" (version ${pinned}, which the revision was validated against) is not loaded by this worker: add it to PLUGINS`,
      'PLUGIN_NOT_AVAILABLE',
    );
  }
  if (!plugin.execute)
    throw ApplicationFailure.nonRetryable(
      `plugin "${call.pluginType}" is a ${plugin.descriptor.kind}: its steps run no call`,
      'PLUGIN_NOT_AVAILABLE',
    );
  requireCompatibleVersion(call.pluginType, plugin, pinned, 'steps');
  const execute = plugin.execute;
  return (context) => runOperatorPlugin(plugin, execute, context);
}

async function runOperatorPlugin(plugin: OperatorPlugin, execute: PluginExecute, context: PluginContext): Promise<PluginResult> {
  const { call } = context;
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A denial is reported as such even when the plugin wraps the error it got in one of its own.
  const denials: EgressDenied[] = [];
  try {
    const result = await withDeadline(context.signal, timeoutMs, async (deadline) =>
      execute({
        config: context.config,
        inputs: context.inputs,
        items: call.item ? [call.item] : call.items,
        secrets: Object.freeze({ ...context.secrets }),
        log: limitedLogger(context.log),
        signal: deadline,
        fetch: denialRecordingFetch(context.egress, deadline, denials),
        step: { executionId: call.executionId, organizationId: call.organizationId, workflowId: call.workflowId, stepId: call.stepId },
        // A copy: what the plugin does to it is not its next state unless it returns it.
        ...(plugin.descriptor.nodeState === true && call.nodeState !== undefined ? { state: structuredClone(call.nodeState) } : {}),
      }),
    );
    return checkedResult(plugin, result, call.maxOutputBytes);
  } catch (error) {
    throw pluginFailure(plugin, error, context.signal, timeoutMs, denials[0]);
  }
}

/**
 * fetch through the egress policy: the caller's dispatcher is ignored, and
 * redirects are followed by ../../egress/redirects.ts (each hop checked,
 * credentials kept to their origin); `redirect: 'manual'` and `'error'` keep their meaning.
 */
export async function checkedFetch(
  policy: EgressPolicy,
  deadline: AbortSignal,
  input: string | URL,
  init: RequestInit = {},
): Promise<Response> {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- a caller's dispatcher would bypass the checks
  const { dispatcher, redirect, signal, ...rest } = init;
  const request = { ...rest, signal: signal ? AbortSignal.any([deadline, signal]) : deadline };
  try {
    return await egressFetchFollowing(policy, new URL(String(input)), request, { redirect });
  } catch (error) {
    // As fetch reports a redirect it will not follow: a TypeError.
    if (error instanceof RedirectRefused) throw new TypeError(`fetch: ${error.message}`, { cause: error });
    throw error;
  }
}

/** The fetch a plugin receives: `checkedFetch`, keeping each egress denial for the step's failure (the plugin may catch it). */
export function denialRecordingFetch(
  policy: EgressPolicy,
  deadline: AbortSignal,
  denials: EgressDenied[],
): (input: string | URL, init?: RequestInit) => Promise<Response> {
  return (url, init) =>
    checkedFetch(policy, deadline, url, init).catch((error: unknown) => {
      const denied = egressDenial(error);
      if (denied) denials.push(denied);
      throw error;
    });
}

export function limitedLogger(log: PluginContext['log']): PluginLogger {
  let lines = 0;
  const write = (level: 'debug' | 'info' | 'warn' | 'error') => (message: string) => {
    lines += 1;
    if (lines === MAX_LOG_LINES + 1) log('warn', `log lines after the first ${MAX_LOG_LINES} were dropped`);
    if (lines > MAX_LOG_LINES) return;
    const text = String(message);
    log(level, text.length > MAX_LOG_LINE_CHARS ? `${text.slice(0, MAX_LOG_LINE_CHARS)}… (truncated)` : text);
  };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The plugin's result as the engine's, refused (without retries) when it is not the documented shape. */
function checkedResult(plugin: OperatorPlugin, result: PluginExecuteResult | undefined, maxStateBytes?: number): PluginResult {
  const invalid = (problem: string) =>
    ApplicationFailure.nonRetryable(`plugin "${plugin.descriptor.name}" returned ${problem}`, 'PLUGIN_RESULT_INVALID');
  const value: unknown = result ?? {};
  if (!isRecord(value)) throw invalid('something other than an object');
  const { outputs, items, activePorts, wait, state } = value;
  if (outputs !== undefined && !isRecord(outputs)) throw invalid('outputs that are not an object');
  if (items !== undefined && !(Array.isArray(items) && items.every(isRecord))) throw invalid('items that are not an array of objects');
  const ports = new Set(['default', ...plugin.descriptor.outputPorts]);
  if (activePorts !== undefined && !(Array.isArray(activePorts) && activePorts.every((port) => ports.has(port as string))))
    throw invalid(`activePorts outside its output ports (${[...ports].join(', ')})`);
  if (plugin.descriptor.kind === 'decider') {
    // The engine passes the step's items to the ports named (../../../workflows/engine/runtime/operator-kinds.ts).
    if (!Array.isArray(activePorts) || activePorts.length === 0)
      throw invalid('no activePorts: a decider names the port(s) its items go to');
    if (items !== undefined) throw invalid('items: a decider routes the items it got (return outputs and activePorts)');
  }
  if (plugin.descriptor.twoPhaseWait === true) {
    // The engine parks on it in the workflow, and checks what it names (../../../workflows/engine/runtime/operator-kinds.ts).
    if (!isRecord(wait)) throw invalid('no wait: a two-phase wait returns wait: {signalName, correlationKey?} (and its outputs)');
    if (items !== undefined || activePorts !== undefined)
      throw invalid("items or activePorts: a two-phase wait returns outputs and wait (its port is the wait's: default or timeout)");
  } else if (wait !== undefined) throw invalid('a wait, but its descriptor does not say twoPhaseWait: true');
  if (state !== undefined) {
    if (plugin.descriptor.nodeState !== true) throw invalid('a state, but its descriptor does not say nodeState: true');
    if (state !== null && !isRecord(state)) throw invalid('a state that is neither an object nor null');
    const size = state === null ? 0 : Buffer.byteLength(JSON.stringify(state));
    if (maxStateBytes !== undefined && size > maxStateBytes)
      throw ApplicationFailure.nonRetryable(
        `plugin "${plugin.descriptor.name}" returned a state of ${size} bytes; at most ${maxStateBytes} are allowed (the step output cap)`,
        'PLUGIN_STATE_TOO_LARGE',
      );
  }
  return {
    status: 'success',
    ...(outputs !== undefined ? { outputs } : {}),
    ...(items !== undefined ? { items } : {}),
    ...(activePorts !== undefined ? { activePorts: activePorts as string[] } : {}),
    ...(wait !== undefined ? { wait: wait as NonNullable<PluginResult['wait']> } : {}),
    ...(state !== undefined ? { nodeState: state } : {}),
  };
}

/** A thrown error as the step's failure: its own `code` and `retryable`, egress denials and timeouts as the built-ins report them. */
export function pluginFailure(
  plugin: OperatorPlugin,
  error: unknown,
  cancelled: AbortSignal,
  timeoutMs: number,
  denial?: EgressDenied,
): unknown {
  if (error instanceof ApplicationFailure) return error;
  const denied = egressDenial(error) ?? denial;
  if (denied) return ApplicationFailure.nonRetryable(denied.message, 'PLUGIN_EGRESS_DENIED');
  if (!cancelled.aborted && error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return ApplicationFailure.retryable(`plugin "${plugin.descriptor.name}" gave no result within ${timeoutMs} ms`, 'PLUGIN_TIMEOUT');
  if (error instanceof Error) {
    const { code, retryable } = error as Error & { code?: unknown; retryable?: unknown };
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code))
      return ApplicationFailure.create({ message: error.message, type: code, nonRetryable: retryable === false });
    if (retryable === false) return ApplicationFailure.create({ message: error.message, type: 'PLUGIN_ERROR', nonRetryable: true });
  }
  return error;
}

/**
 * Fails without retries (PLUGIN_VERSION_MISMATCH) unless the loaded plugin can run what was validated against
 * `pinned` (its steps, or its triggers' activation).
 */
export function requireCompatibleVersion(
  name: string,
  plugin: OperatorPlugin,
  pinned: string | undefined,
  what: 'steps' | 'triggers',
): void {
  const available = plugin.descriptor.version ?? '0.0.0';
  if (pinned !== undefined && isCompatibleVersion(pinned, available)) return;
  throw ApplicationFailure.nonRetryable(
    `plugin "${name}" is at version ${available} in this worker, which cannot run ${what} validated against ` +
      `version ${pinned ?? '(none)'}: run a worker with a compatible version, or publish the workflow again`,
    'PLUGIN_VERSION_MISMATCH',
  );
}
