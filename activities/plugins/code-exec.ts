/**
 * `code-exec`: JavaScript in a QuickJS sandbox (quickjs-emscripten, WebAssembly,
 * synchronous build): no `require`, `process`, file system or timers; a memory
 * limit, a stack limit and a deadline enforced by an interrupt handler and,
 * while the code waits on the network, by a timer. The code runs as the body
 * of an async function (top-level `await` works) with `inputs`, `$items`,
 * `$item`, and `console`/`log` whose lines become execution logs.
 *
 * No network unless `network.allowedHosts` lists host patterns: then a global
 * `fetch` (./sandbox-fetch.ts) reaches those hosts, within the worker's egress
 * policy. This file orchestrates: it settles the code's promise by running
 * QuickJS jobs, awaits outstanding host fetches when nothing else can run, and
 * disposes every handle before the runtime.
 *
 * The returned value becomes the output: an object as is, an array as items,
 * anything else as `{result}`, undefined as `{}`.
 */
import { ApplicationFailure } from '@temporalio/common';
import { getQuickJS, shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten';
import { codeExecDescriptor, parseDuration, type Item, type PluginResult } from '../../workflows/engine';
import type { EffectfulPlugin, PluginContext } from './plugin-context';
import { SandboxFetch } from './sandbox-fetch';

export const CODE_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
export const CODE_DEFAULT_TIMEOUT_MS = 10_000;
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** The activity implementation of the `code-exec` descriptor. */
export const codeExecPlugin: EffectfulPlugin = { descriptor: codeExecDescriptor, run: codeExec };

export async function codeExec({ call, config, inputs, log, signal, egress }: PluginContext): Promise<PluginResult> {
  const code = typeof config.code === 'string' ? config.code : '';
  if (code.trim() === '') throw ApplicationFailure.nonRetryable('code-exec needs "code"', 'PLUGIN_CONFIG_INVALID');
  if (config.language === 'ts' || config.language === 'typescript') {
    throw ApplicationFailure.nonRetryable('code-exec runs JavaScript; TypeScript is not supported', 'PLUGIN_CONFIG_INVALID');
  }
  const allowedHosts = allowedHostsOf(config.network);
  const timeoutMs = Math.min(parseDuration(call.timeoutMs) ?? CODE_DEFAULT_TIMEOUT_MS, CODE_DEFAULT_TIMEOUT_MS * 6);

  const quickjs = await getQuickJS();
  const deadline = Date.now() + timeoutMs;
  // Aborted at the deadline or on activity cancellation: stops the network and any wait on it.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), timeoutMs);
  const onCancel = () => stop.abort();
  signal.addEventListener('abort', onCancel, { once: true });
  if (signal.aborted) stop.abort();

  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(CODE_MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
  const vm = runtime.newContext();
  const network = allowedHosts ? new SandboxFetch(vm, { allowedHosts, egress, signal: stop.signal }) : undefined;
  let promise: QuickJSHandle | undefined;
  try {
    defineGlobals(vm, { inputs, $items: call.items, $item: call.item ?? null, $itemIndex: call.itemIndex ?? 0 }, log);
    network?.install();
    promise = unwrap(vm, vm.evalCode(`(async () => {\n${code}\n})()`, 'code-exec.js'), timeoutMs);
    const value = await settle(runtime, vm, promise, network, {
      stop: stop.signal,
      check: () => {
        if (signal.aborted) throw ApplicationFailure.nonRetryable('the run was cancelled', 'SANDBOX_CANCELLED');
        if (Date.now() >= deadline) throw timeoutFailure(timeoutMs);
      },
      timeoutMs,
    });
    return toResult(value);
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onCancel);
    // Handles first (the bridge's deferreds, the code's promise), then the context and the runtime.
    network?.dispose();
    if (promise?.alive) promise.dispose();
    vm.dispose();
    runtime.dispose();
  }
}

/**
 * Runs queued jobs until the code's promise settles. When nothing can run but
 * host fetches are outstanding, waits for the next one (or the stop signal),
 * then `check` fails the run on cancellation or a passed deadline. Nothing
 * runnable and nothing outstanding is a deadlock.
 */
async function settle(
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
  promise: QuickJSHandle,
  network: SandboxFetch | undefined,
  { stop, check, timeoutMs }: { stop: AbortSignal; check: () => void; timeoutMs: number },
): Promise<unknown> {
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) {
      const error = vm.dump(jobs.error) as unknown;
      jobs.error.dispose();
      throw sandboxFailure(error, timeoutMs);
    }
    const state = vm.getPromiseState(promise);
    if (state.type === 'pending') {
      if (jobs.value > 0) continue;
      if (!network || network.outstanding === 0) {
        throw ApplicationFailure.nonRetryable(
          'the code awaits something that never settles (no timers in the sandbox)',
          'SANDBOX_DEADLOCK',
        );
      }
      await untilStopped(network.next(), stop);
      check();
      continue;
    }
    if (state.type === 'rejected') {
      const error = vm.dump(state.error) as unknown;
      state.error.dispose();
      throw sandboxFailure(error, timeoutMs);
    }
    const value = vm.dump(state.value) as unknown;
    state.value.dispose();
    return value;
  }
}

/** `work`, or earlier when `stop` aborts. */
function untilStopped(work: Promise<void>, stop: AbortSignal): Promise<void> {
  if (stop.aborted) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const onStop = () => resolve();
    stop.addEventListener('abort', onStop, { once: true });
    work.then(resolve, reject).finally(() => stop.removeEventListener('abort', onStop));
  });
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

function defineGlobals(vm: QuickJSContext, values: Record<string, unknown>, log: PluginContext['log']): void {
  for (const [name, value] of Object.entries(values)) {
    const handle = unwrap(vm, vm.evalCode(`(${JSON.stringify(value ?? null)})`), 0);
    vm.setProp(vm.global, name, handle);
    handle.dispose();
  }
  const logger = vm.newObject();
  for (const level of [...LOG_LEVELS, 'log'] as const) {
    const fn = vm.newFunction(level, (...args: QuickJSHandle[]) => {
      const message = args.map((arg) => {
        const value = vm.dump(arg) as unknown;
        return typeof value === 'string' ? value : JSON.stringify(value);
      });
      log(level === 'log' ? 'info' : level, message.join(' '));
    });
    vm.setProp(logger, level, fn);
    fn.dispose();
  }
  vm.setProp(vm.global, 'console', logger);
  vm.setProp(vm.global, 'log', logger);
  logger.dispose();
}

function unwrap(vm: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>, timeoutMs: number): QuickJSHandle {
  if (result.error) {
    const error = vm.dump(result.error) as unknown;
    result.error.dispose();
    throw sandboxFailure(error, timeoutMs);
  }
  return result.value;
}

function sandboxFailure(error: unknown, timeoutMs: number): ApplicationFailure {
  const details = (error ?? {}) as { name?: string; message?: string };
  const message = details.message ?? String(error);
  if (/interrupted/i.test(message)) return timeoutFailure(timeoutMs);
  if (/out of memory/i.test(message))
    return ApplicationFailure.nonRetryable('the code used more memory than allowed', 'SANDBOX_MEMORY_LIMIT');
  if (details.name === 'SyntaxError') return ApplicationFailure.nonRetryable(`syntax error: ${message}`, 'SANDBOX_SYNTAX_ERROR');
  return ApplicationFailure.nonRetryable(`${details.name ?? 'Error'}: ${message}`, 'SANDBOX_ERROR');
}

function timeoutFailure(timeoutMs: number): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`the code ran longer than ${timeoutMs} ms`, 'SANDBOX_TIMEOUT');
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
