/**
 * `code-exec`: JavaScript in a QuickJS sandbox, run on a thread of the
 * worker's code-exec pool (./code-exec-pool.ts) so that a busy script never
 * stalls the event loop. This file checks the step's config, hands the pool a
 * job of plain data (code, globals, network, deadline) and turns the outcome
 * into the step's result or a failure. The sandbox itself (globals, `fetch`,
 * limits and caps) is ./code-exec-sandbox.ts.
 *
 * The returned value becomes the output: an object as is, an array as items,
 * anything else as `{result}`, undefined as `{}`.
 */
import { ApplicationFailure } from '@temporalio/common';
import { codeExecDescriptor, parseDuration, type Item, type PluginResult } from '../../workflows/engine';
import { sharedCodeExecPool } from './code-exec-pool';
import type { EffectfulPlugin, PluginContext } from './plugin-context';

export const CODE_DEFAULT_TIMEOUT_MS = 10_000;

/** The activity implementation of the `code-exec` descriptor. */
export const codeExecPlugin: EffectfulPlugin = { descriptor: codeExecDescriptor, run: codeExec };

export async function codeExec({ call, config, inputs, log, signal, egress, codeExecPool }: PluginContext): Promise<PluginResult> {
  const code = typeof config.code === 'string' ? config.code : '';
  if (code.trim() === '') throw ApplicationFailure.nonRetryable('code-exec needs "code"', 'PLUGIN_CONFIG_INVALID');
  if (config.language === 'ts' || config.language === 'typescript') {
    throw ApplicationFailure.nonRetryable('code-exec runs JavaScript; TypeScript is not supported', 'PLUGIN_CONFIG_INVALID');
  }
  const allowedHosts = allowedHostsOf(config.network);
  const timeoutMs = Math.min(parseDuration(call.timeoutMs) ?? CODE_DEFAULT_TIMEOUT_MS, CODE_DEFAULT_TIMEOUT_MS * 6);

  const outcome = await (codeExecPool ?? sharedCodeExecPool()).run(
    {
      organizationId: call.organizationId,
      code,
      globals: { inputs, $items: call.items, $item: call.item ?? null, $itemIndex: call.itemIndex ?? 0 },
      allowedHosts,
      egress,
      timeoutMs,
    },
    { signal, onLog: log },
  );
  if (!outcome.ok) {
    throw outcome.retryable
      ? ApplicationFailure.retryable(outcome.message, outcome.type)
      : ApplicationFailure.nonRetryable(outcome.message, outcome.type);
  }
  return toResult(outcome.value);
}

/** `network.allowedHosts` when it lists at least one pattern; otherwise the sandbox has no `fetch`. */
function allowedHostsOf(network: unknown): string[] | undefined {
  if (network === undefined || network === null) return undefined;
  const hosts = typeof network === 'object' ? (network as { allowedHosts?: unknown }).allowedHosts : network;
  if (hosts === undefined || hosts === null) return undefined;
  if (Array.isArray(network) || !Array.isArray(hosts) || hosts.some((host) => typeof host !== 'string' || host.trim() === '')) {
    throw ApplicationFailure.nonRetryable('network.allowedHosts must be a list of host names or patterns', 'PLUGIN_CONFIG_INVALID');
  }
  return hosts.length > 0 ? (hosts as string[]) : undefined;
}

function toResult(value: unknown): PluginResult {
  if (value === undefined || value === null) return { status: 'success', outputs: {} };
  if (Array.isArray(value)) {
    return {
      status: 'success',
      items: value.map((entry) =>
        entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Item) : { result: entry },
      ),
    };
  }
  if (typeof value === 'object') return { status: 'success', outputs: value as Item };
  return { status: 'success', outputs: { result: value } };
}
