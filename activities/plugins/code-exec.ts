/**
 * `code-exec`: JavaScript in a QuickJS sandbox (quickjs-emscripten, WebAssembly):
 * no `require`, `process`, file system, timers or network; a memory limit, a
 * stack limit and a deadline enforced by an interrupt handler. The code runs as
 * the body of an async function (top-level `await` works) with `inputs`,
 * `$items`, `$item`, and `console`/`log` whose lines become execution logs.
 *
 * The returned value becomes the output: an object as is, an array as items,
 * anything else as `{result}`, undefined as `{}`.
 */
import { ApplicationFailure } from '@temporalio/common';
import { getQuickJS, shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten';
import { parseDuration } from '../../workflows/engine/durations';
import type { Item, PluginResult } from '../../workflows/engine/runtime/types';
import type { PluginContext } from './plugin-context';

export const CODE_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
export const CODE_DEFAULT_TIMEOUT_MS = 10_000;
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export async function codeExec({ call, config, inputs, log }: PluginContext): Promise<PluginResult> {
  const code = typeof config.code === 'string' ? config.code : '';
  if (code.trim() === '') throw ApplicationFailure.nonRetryable('code-exec needs "code"', 'PLUGIN_CONFIG_INVALID');
  if (config.language === 'ts' || config.language === 'typescript') {
    throw ApplicationFailure.nonRetryable('code-exec runs JavaScript; TypeScript is not supported', 'PLUGIN_CONFIG_INVALID');
  }
  const timeoutMs = Math.min(parseDuration(call.timeoutMs) ?? CODE_DEFAULT_TIMEOUT_MS, CODE_DEFAULT_TIMEOUT_MS * 6);

  const quickjs = await getQuickJS();
  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(CODE_MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(1024 * 1024);
  runtime.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeoutMs));
  const vm = runtime.newContext();
  try {
    defineGlobals(vm, { inputs, $items: call.items, $item: call.item ?? null, $itemIndex: call.itemIndex ?? 0 }, log);
    const evaluated = vm.evalCode(`(async () => {\n${code}\n})()`, 'code-exec.js');
    const promise = unwrap(vm, evaluated, timeoutMs);
    // Settle the async function: run queued jobs until the promise is no longer pending.
    let value: unknown;
    for (;;) {
      const jobs = runtime.executePendingJobs();
      if (jobs.error) {
        const error = vm.dump(jobs.error) as unknown;
        jobs.error.dispose();
        throw sandboxFailure(error, timeoutMs);
      }
      const state = vm.getPromiseState(promise);
      if (state.type === 'pending') {
        if (jobs.value === 0) throw ApplicationFailure.nonRetryable('the code awaits something that never settles (no timers or network in the sandbox)', 'SANDBOX_DEADLOCK');
        continue;
      }
      promise.dispose();
      if (state.type === 'rejected') {
        const error = vm.dump(state.error) as unknown;
        state.error.dispose();
        throw sandboxFailure(error, timeoutMs);
      }
      value = vm.dump(state.value) as unknown;
      state.value.dispose();
      break;
    }
    return toResult(value);
  } finally {
    vm.dispose();
    runtime.dispose();
  }
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
  if (/interrupted/i.test(message)) return ApplicationFailure.nonRetryable(`the code ran longer than ${timeoutMs} ms`, 'SANDBOX_TIMEOUT');
  if (/out of memory/i.test(message)) return ApplicationFailure.nonRetryable('the code used more memory than allowed', 'SANDBOX_MEMORY_LIMIT');
  if (details.name === 'SyntaxError') return ApplicationFailure.nonRetryable(`syntax error: ${message}`, 'SANDBOX_SYNTAX_ERROR');
  return ApplicationFailure.nonRetryable(`${details.name ?? 'Error'}: ${message}`, 'SANDBOX_ERROR');
}

function toResult(value: unknown): PluginResult {
  if (value === undefined || value === null) return { status: 'success', outputs: {} };
  if (Array.isArray(value)) {
    return { status: 'success', items: value.map((entry) => (entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? (entry as Item) : { result: entry })) };
  }
  if (typeof value === 'object') return { status: 'success', outputs: value as Item };
  return { status: 'success', outputs: { result: value } };
}
