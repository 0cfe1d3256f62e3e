/**
 * `code-exec`: JavaScript (or TypeScript, its types stripped:
 * ./code-exec-typescript.ts) in a QuickJS sandbox, run on a thread of the
 * worker's code-exec pool (./code-exec-pool.ts) so that a busy script never
 * stalls the event loop. This file checks the step's config, hands the pool a
 * job of plain data (code, globals, network, deadline) and turns the outcome
 * into the step's result or a failure. The sandbox itself (globals, `fetch`,
 * limits and caps) is ./code-exec-sandbox.ts.
 *
 * The returned value becomes the output as the compatible engine documents:
 * a plain object as is, undefined (or null) as `{}`, anything else (an array,
 * a string, a number…) as `{result}`. With `returns: items` the code returns
 * an array instead, and each element becomes one item (a non-object element
 * `{result: element}`); any other value fails the step. A `forEach.reduce`
 * iteration also gets a wrapped value itself (`value`): the accumulator takes
 * what the script returned, not the `{result}` around it.
 *
 * Templates in the code are never pasted into it: the sandbox compiles the
 * engine's plan of the code (each template replaced by a call) and the
 * templates' texts (`bound.code`, secrets included) are handed to it as data
 * (workflows/engine/script-templates.ts). A revision published before that
 * rule whose templates cannot be placed fails here, before anything runs.
 */
import { ApplicationFailure } from '@temporalio/common';
import { SCRIPT_TEMPLATE_IDIOM, codeExecDescriptor, parseDuration, planScript, type Item, type PluginResult } from '../../workflows/engine';
import type { BoundTemplates } from './code-exec-protocol';
import { sharedCodeExecPool } from './code-exec-pool';
import { isTypeScript, stripTypes } from './code-exec-typescript';
import type { EffectfulPlugin, PluginContext } from './plugin-context';

export const CODE_DEFAULT_TIMEOUT_MS = 10_000;

/** The activity implementation of the `code-exec` descriptor. */
export const codeExecPlugin: EffectfulPlugin = { descriptor: codeExecDescriptor, run: codeExec };

export async function codeExec({ call, config, inputs, bound, log, signal, egress, codeExecPool }: PluginContext): Promise<PluginResult> {
  const code = typeof config.code === 'string' ? config.code : '';
  if (code.trim() === '') throw ApplicationFailure.nonRetryable('code-exec needs "code"', 'PLUGIN_CONFIG_INVALID');
  const script = isTypeScript(config.language)
    ? { code: await typeScriptWithoutTemplates(code, bound?.code) }
    : bindTemplates(code, bound?.code ?? []);
  const allowedHosts = allowedHostsOf(config.network);
  const timeoutMs = Math.min(parseDuration(call.timeoutMs) ?? CODE_DEFAULT_TIMEOUT_MS, CODE_DEFAULT_TIMEOUT_MS * 6);

  const outcome = await (codeExecPool ?? sharedCodeExecPool()).run(
    {
      organizationId: call.organizationId,
      code: script.code,
      ...(script.templates ? { templates: script.templates } : {}),
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
  // No `returns` at all: a revision published before it existed (the validator writes one into every newer revision),
  // run as it was then: a returned array is the step's items.
  const legacyItems = config.returns === undefined && Array.isArray(outcome.value);
  const result = config.returns === 'items' || legacyItems ? toItems(outcome.value) : toOutput(outcome.value);
  return call.returnValue === true && isWrapped(outcome.value) ? { ...result, value: outcome.value } : result;
}

/**
 * The code the sandbox compiles and the texts it binds. A template where the code reads a value must be a
 * JSON text (what pasting it would have meant); any other text would be code, and fails the step.
 * Messages name the template's source, never its value.
 */
function bindTemplates(code: string, texts: readonly string[]): { code: string; templates?: BoundTemplates } {
  const { plan, error } = planScript(code);
  if (!plan) throw ApplicationFailure.nonRetryable(`code-exec "code" ${error}`, 'PLUGIN_CONFIG_INVALID');
  if (plan.slots.length === 0) return { code };
  if (texts.length !== plan.slots.length)
    throw ApplicationFailure.nonRetryable(
      `code-exec "code" has ${plan.slots.length} templates but the call carries ${texts.length} values`,
      'PLUGIN_CONFIG_INVALID',
    );
  plan.slots.forEach((slot, index) => {
    if (slot !== 'value' || isJsonText(texts[index])) return;
    throw ApplicationFailure.nonRetryable(
      `the template "\${{${plan.templates[index]}}}" stands where the code reads a value, and its text is not a JSON value ` +
        `(as code it would run): ${SCRIPT_TEMPLATE_IDIOM}, or put the template inside a string`,
      'CODE_TEMPLATE_NOT_A_VALUE',
    );
  });
  return {
    code: plan.source,
    templates: { valueFunction: plan.valueFunction, textFunction: plan.textFunction, texts: [...texts] },
  };
}

/** A TypeScript script carries no templates (refused at publish): its types stripped, it runs as written. */
async function typeScriptWithoutTemplates(code: string, texts: readonly string[] | undefined): Promise<string> {
  if (texts && texts.length > 0)
    throw ApplicationFailure.nonRetryable(
      `code-exec "code" in TypeScript cannot hold templates: ${SCRIPT_TEMPLATE_IDIOM}`,
      'PLUGIN_CONFIG_INVALID',
    );
  return stripTypes(code);
}

function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
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

/** The default: one output. An object as is, nothing as `{}`, any other value (an array too) as `{result}`. */
function toOutput(value: unknown): PluginResult {
  if (value === undefined || value === null) return { status: 'success', outputs: {} };
  if (typeof value === 'object' && !Array.isArray(value)) return { status: 'success', outputs: value as Item };
  return { status: 'success', outputs: { result: value } };
}

/** A value the output does not hold as it is (a list, a string, a number…): a reduce's accumulator asks for it (`value`). */
function isWrapped(value: unknown): boolean {
  return value !== undefined && value !== null && (typeof value !== 'object' || Array.isArray(value));
}

/** `returns: items`: the returned array's elements are the step's items. */
function toItems(value: unknown): PluginResult {
  if (!Array.isArray(value)) {
    const got = value === null ? 'null' : typeof value;
    throw ApplicationFailure.nonRetryable(
      `code-exec has returns: items, so the code must return an array (it returned ${got}); return a list, or remove returns: items to make what it returns the step's output`,
      'PLUGIN_RESULT_INVALID',
    );
  }
  return {
    status: 'success',
    items: value.map((entry) =>
      entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Item) : { result: entry },
    ),
  };
}
