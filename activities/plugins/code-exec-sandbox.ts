/**
 * One code-exec run in QuickJS (quickjs-emscripten, WebAssembly, synchronous
 * build), inside a pool thread (./code-exec-thread.ts): no `require`,
 * `process`, file system or timers; a memory limit, a stack limit, and an
 * interrupt handler that stops the code at its deadline, on cancellation, or
 * as soon as it crosses a cap. The code runs as the body of an async function
 * (top-level `await` works) with `inputs`, `$items`, `$item`, `$itemIndex`,
 * and `console`/`log` whose lines go to `onLog`. `log.info(message, metadata)`
 * (a text and a plain object, as the compatible engine documents) gives the
 * entry that object as its metadata; any other call, and every `console.*`
 * call, joins its arguments into the message. Metadata counts towards the
 * log byte cap.
 *
 * No network unless `allowedHosts` lists host patterns: then a global `fetch`
 * (./sandbox-fetch.ts) reaches those hosts within the egress policy, its
 * response bodies capped. This file settles the code's promise by running
 * QuickJS jobs, awaits outstanding fetches when nothing else can run, reports
 * the outcome, and only then disposes every handle (freeing a large heap takes
 * time the caller should not wait for).
 *
 * QuickJS polls the interrupt handler only every 10,000 branches and calls, so
 * a loop whose every turn is heavy (a long string search, a big array copy)
 * can overrun its deadline by seconds; the pool stops such a thread from the
 * outside (./code-exec-pool.ts). The handler still ends the common case
 * cleanly, without losing the thread.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';
import {
  timeoutMessage,
  type BoundTemplates,
  type CodeJob,
  type CodeOutcome,
  type LogLevel,
  type LogMetadata,
  type SandboxErrorType,
} from './code-exec-protocol';
import { SandboxFetch } from './sandbox-fetch';

export const CODE_MEMORY_LIMIT_BYTES = 64 * 1024 * 1024;
const STACK_LIMIT_BYTES = 1024 * 1024;
const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

/** A failure of the code, reported as its outcome. */
class SandboxFailure extends Error {
  constructor(
    readonly type: SandboxErrorType,
    message: string,
  ) {
    super(message);
  }
}

export interface RunHooks {
  /** Aborted on cancellation: stops the network and any wait on it. */
  signal: AbortSignal;
  /** Read by the interrupt handler while the code runs (the thread cannot take messages then). */
  cancelled: () => boolean;
  onLog: (level: LogLevel, message: string, metadata?: LogMetadata) => void;
  /** Receives the outcome before the sandbox is disposed. */
  report: (outcome: CodeOutcome) => void;
}

export async function runCode(quickjs: QuickJSWASMModule, job: CodeJob, hooks: RunHooks): Promise<void> {
  const { deadline, timeoutMs, waitedMs } = job;
  // Aborted at the deadline or on cancellation: stops the network and any wait on it.
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), Math.max(0, deadline - Date.now()));
  const onCancel = () => stop.abort();
  hooks.signal.addEventListener('abort', onCancel, { once: true });
  if (hooks.signal.aborted) stop.abort();

  const stops = new Stops(deadline, timeoutMessage(timeoutMs, waitedMs), () => hooks.cancelled() || hooks.signal.aborted);

  const runtime = quickjs.newRuntime();
  runtime.setMemoryLimit(CODE_MEMORY_LIMIT_BYTES);
  runtime.setMaxStackSize(STACK_LIMIT_BYTES);
  runtime.setInterruptHandler(() => stops.reason() !== undefined);
  const vm = runtime.newContext();
  const network = job.allowedHosts
    ? new SandboxFetch(vm, {
        allowedHosts: job.allowedHosts,
        egress: job.egress,
        signal: stop.signal,
        maxBodyBytes: job.limits.maxFetchBodyBytes,
      })
    : undefined;
  let promise: QuickJSHandle | undefined;
  let stringify: QuickJSHandle | undefined;
  try {
    let outcome: CodeOutcome;
    try {
      // Taken before the code runs: the code may replace the global JSON, not the serializer of its result.
      stringify = vm.getProp(vm.global, 'JSON').consume((json) => vm.getProp(json, 'stringify'));
      defineGlobals(vm, job, hooks.onLog, stops);
      network?.install();
      promise = unwrap(vm, vm.evalCode(`(async () => {\n${job.code}\n})()`, 'code-exec.js'), stops);
      const value = await settle(runtime, vm, promise, network, stops, stop.signal);
      outcome = { ok: true, value: serialize(vm, stringify, value, job.limits.maxResultBytes, stops) };
    } catch (error) {
      if (!(error instanceof SandboxFailure)) throw error;
      outcome = { ok: false, type: error.type, message: error.message };
    }
    hooks.report(outcome);
  } finally {
    clearTimeout(timer);
    hooks.signal.removeEventListener('abort', onCancel);
    // Handles first (the bridge's deferreds, the code's promise), then the context and the runtime.
    network?.dispose();
    if (stringify?.alive) stringify.dispose();
    if (promise?.alive) promise.dispose();
    vm.dispose();
    runtime.dispose();
  }
}

/**
 * Runs queued jobs until the code's promise settles and returns its value
 * handle. When nothing can run but fetches are outstanding, waits for the next
 * one (or the stop signal), then fails on cancellation or a passed deadline.
 * Nothing runnable and nothing outstanding is a deadlock.
 */
async function settle(
  runtime: QuickJSRuntime,
  vm: QuickJSContext,
  promise: QuickJSHandle,
  network: SandboxFetch | undefined,
  stops: Stops,
  stop: AbortSignal,
): Promise<QuickJSHandle> {
  for (;;) {
    const jobs = runtime.executePendingJobs();
    if (jobs.error) throw failureOf(vm, jobs.error, stops);
    const state = vm.getPromiseState(promise);
    if (state.type === 'pending') {
      if (jobs.value > 0) continue;
      if (!network || network.outstanding === 0) {
        throw new SandboxFailure('SANDBOX_DEADLOCK', 'the code awaits something that never settles (no timers in the sandbox)');
      }
      await untilStopped(network.next(), stop);
      const failure = stops.reason();
      if (failure) throw failure;
      continue;
    }
    if (state.type === 'rejected') throw failureOf(vm, state.error, stops);
    return state.value;
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

/**
 * The returned value as JSON data, refused when its JSON is over `maxBytes`.
 * The length is read inside QuickJS first, so an oversized result is never
 * copied out (a JSON string has at least as many UTF-8 bytes as UTF-16 units).
 */
function serialize(vm: QuickJSContext, stringify: QuickJSHandle, value: QuickJSHandle, maxBytes: number, stops: Stops): unknown {
  try {
    const json = vm.callFunction(stringify, vm.undefined, value);
    if (json.error) throw failureOf(vm, json.error, stops);
    return json.value.consume((text) => {
      if (vm.typeof(text) !== 'string') return undefined;
      const tooLarge = () => new SandboxFailure('SANDBOX_RESULT_TOO_LARGE', `the result is over ${maxBytes} bytes of JSON`);
      if (vm.getProp(text, 'length').consume((length) => vm.getNumber(length)) > maxBytes) throw tooLarge();
      const copied = vm.getString(text);
      if (Buffer.byteLength(copied) > maxBytes) throw tooLarge();
      return JSON.parse(copied) as unknown;
    });
  } finally {
    value.dispose();
  }
}

function defineGlobals(vm: QuickJSContext, job: CodeJob, onLog: RunHooks['onLog'], stops: Stops): void {
  for (const [name, value] of Object.entries(job.globals)) {
    const handle = vm.unwrapResult(vm.evalCode(`(${JSON.stringify(value ?? null)})`));
    vm.setProp(vm.global, name, handle);
    handle.dispose();
  }
  if (job.templates) bindTemplates(vm, job.templates);
  const { maxLogLines, maxLogBytes } = job.limits;
  let lines = 0;
  let bytes = 0;
  const loggers = { console: vm.newObject(), log: vm.newObject() };
  for (const [global, logger] of Object.entries(loggers))
    for (const level of [...LOG_LEVELS, 'log'] as const) {
      const fn = vm.newFunction(level, (...args: QuickJSHandle[]) => {
        const values = args.map((arg) => vm.dump(arg) as unknown);
        const [text, metadata] = global === 'log' && isMessageAndMetadata(values) ? [values[0], values[1]] : [undefined, undefined];
        const message = text ?? values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(' ');
        const metadataText = metadata === undefined ? '' : JSON.stringify(metadata);
        lines += 1;
        bytes += Buffer.byteLength(message) + Buffer.byteLength(metadataText);
        // The handler interrupts the code at its next check; the thrown error is for the rare host call in between.
        if (lines > maxLogLines)
          throw stops.fail(new SandboxFailure('SANDBOX_LOG_LIMIT', `the code wrote more than ${maxLogLines} log lines`));
        if (bytes > maxLogBytes)
          throw stops.fail(new SandboxFailure('SANDBOX_LOG_LIMIT', `the code wrote more than ${maxLogBytes} bytes of logs`));
        onLog(level === 'log' ? 'info' : level, message, metadata && (JSON.parse(metadataText) as LogMetadata));
      });
      vm.setProp(logger, level, fn);
      fn.dispose();
    }
  for (const [global, logger] of Object.entries(loggers)) {
    vm.setProp(vm.global, global, logger);
    logger.dispose();
  }
}

/** `log.info('text', {…})`: a message and the entry's metadata. */
function isMessageAndMetadata(values: unknown[]): values is [string, LogMetadata] {
  const [message, metadata] = values;
  return (
    values.length === 2 && typeof message === 'string' && metadata !== null && typeof metadata === 'object' && !Array.isArray(metadata)
  );
}

/**
 * The two functions the planned code calls for its templates. No source text
 * carries a value: each text crosses as a QuickJS string holding its JSON
 * encoding (a C string cannot hold NUL; JSON escapes it), kept in a closure
 * the code cannot reach and decoded with the `JSON.parse` of before the code
 * ran. VALUE(i) parses the text itself as JSON: a fresh value on every call,
 * as a pasted literal would be.
 */
function bindTemplates(vm: QuickJSContext, { valueFunction, textFunction, texts }: BoundTemplates): void {
  const encoded = vm.newArray();
  texts.forEach((text, index) => vm.newString(JSON.stringify(text)).consume((handle) => vm.setProp(encoded, index, handle)));
  const factory = vm.unwrapResult(vm.evalCode('(parse, texts) => [(i) => parse(parse(texts[i])), (i) => parse(texts[i])]'));
  const parse = vm.getProp(vm.global, 'JSON').consume((json) => vm.getProp(json, 'parse'));
  const pair = vm.unwrapResult(vm.callFunction(factory, vm.undefined, parse, encoded));
  vm.getProp(pair, 0).consume((fn) => vm.setProp(vm.global, valueFunction, fn));
  vm.getProp(pair, 1).consume((fn) => vm.setProp(vm.global, textFunction, fn));
  for (const handle of [pair, parse, factory, encoded]) handle.dispose();
}

function unwrap(vm: QuickJSContext, result: ReturnType<QuickJSContext['evalCode']>, stops: Stops): QuickJSHandle {
  if (result.error) throw failureOf(vm, result.error, stops);
  return result.value;
}

/**
 * The failure an error handle stands for (disposed here). A crossed cap wins
 * over whatever the code made of the error it got; an interrupt is whatever
 * stopped the code.
 */
function failureOf(vm: QuickJSContext, handle: QuickJSHandle, stops: Stops): SandboxFailure {
  const error = handle.consume((h) => vm.dump(h) as unknown);
  if (stops.fault) return stops.fault;
  const details = (error ?? {}) as { name?: string; message?: string };
  const message = details.message ?? String(error);
  if (/interrupted/i.test(message)) return stops.reason() ?? new SandboxFailure('SANDBOX_ERROR', 'the code was interrupted');
  if (/out of memory/i.test(message)) return new SandboxFailure('SANDBOX_MEMORY_LIMIT', 'the code used more memory than allowed');
  if (details.name === 'SyntaxError') return new SandboxFailure('SANDBOX_SYNTAX_ERROR', `syntax error: ${message}`);
  return new SandboxFailure('SANDBOX_ERROR', `${details.name ?? 'Error'}: ${message}`);
}

/** Why the code must stop now, if it must: a crossed cap, cancellation, or the deadline. Read by the interrupt handler. */
class Stops {
  /** A cap crossed by a host function: ends the code at the next interrupt check, whatever the code catches. */
  fault: SandboxFailure | undefined;

  constructor(
    private readonly deadline: number,
    private readonly timeoutMessage: string,
    private readonly cancelled: () => boolean,
  ) {}

  fail(failure: SandboxFailure): SandboxFailure {
    this.fault ??= failure;
    return this.fault;
  }

  reason(): SandboxFailure | undefined {
    if (this.fault) return this.fault;
    if (this.cancelled()) return new SandboxFailure('SANDBOX_CANCELLED', 'the run was cancelled');
    if (Date.now() >= this.deadline) return new SandboxFailure('SANDBOX_TIMEOUT', this.timeoutMessage);
    return undefined;
  }
}
