/**
 * The code-exec thread pool: scripts run in node:worker_threads, never on the
 * worker's event loop, so a busy script cannot stall the other activities or
 * (under `npm start`, one process) the API.
 *
 * Threads start on demand up to `threads`, load QuickJS once and are reused;
 * jobs wait in order for a free one. Each job has an absolute deadline. The
 * thread's interrupt handler stops the code there; should QuickJS not poll it
 * in time (it polls every 10,000 branches and calls, see
 * ./code-exec-sandbox.ts), the pool terminates the thread
 * `HARD_STOP_GRACE_MS` later and starts another. Cancellation sets the
 * thread's shared cancel slot (read by the interrupt handler) and, if the
 * thread does not answer in time, terminates it too. A thread that dies fails
 * its job and is replaced. `close()` stops everything (worker shutdown).
 */
import { Worker } from 'node:worker_threads';
import { CODE_EXEC_DEFAULTS, type CodeExecSettings } from '../../config/config';
import type { CodeJob, CodeLimits, CodeOutcome, FromThread, LogLevel, SandboxErrorType, ThreadData, ToThread } from './code-exec-protocol';

/** How long past its deadline (or its cancellation) a job's thread may take before it is terminated. */
export const HARD_STOP_GRACE_MS = 30;

/** Resolves to the TypeScript source under tsx and to the compiled file in dist/. */
const THREAD_ENTRY = require.resolve('./code-exec-thread');

export type CodeRequest = Omit<CodeJob, 'deadline' | 'limits'>;

export interface CodeRunHooks {
  /** Cancels the run (activity cancellation): queued, it never starts; running, it is stopped. */
  signal: AbortSignal;
  onLog: (level: LogLevel, message: string) => void;
}

interface Task {
  id: number;
  request: CodeRequest;
  hooks: CodeRunHooks;
  resolve: (outcome: CodeOutcome) => void;
  thread?: PoolThread;
  timer?: NodeJS.Timeout;
  onAbort: () => void;
}

interface PoolThread {
  worker: Worker;
  cancel: Int32Array;
  ready: boolean;
  task?: Task;
}

export class CodeExecPool {
  readonly limits: CodeLimits;
  private readonly threads = new Set<PoolThread>();
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;
  private startedThreads = 0;

  constructor(private readonly settings: CodeExecSettings = CODE_EXEC_DEFAULTS) {
    const { threads: _threads, ...limits } = settings;
    this.limits = limits;
  }

  /** Threads started so far, replacements included (reuse and replacement show in it). */
  get started(): number {
    return this.startedThreads;
  }

  /** Runs one script; always resolves (a failure is an outcome). */
  run(request: CodeRequest, hooks: CodeRunHooks): Promise<CodeOutcome> {
    if (this.closed) return Promise.resolve(shutdownOutcome());
    if (hooks.signal.aborted) return Promise.resolve(failure('SANDBOX_CANCELLED', 'the run was cancelled'));
    return new Promise<CodeOutcome>((resolve) => {
      const task: Task = { id: this.nextId++, request, hooks, resolve, onAbort: () => this.cancel(task) };
      hooks.signal.addEventListener('abort', task.onAbort, { once: true });
      this.queue.push(task);
      this.pump();
    });
  }

  /** Fails queued jobs, terminates every thread (running jobs fail) and waits for them to exit. */
  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) this.finish(task, shutdownOutcome());
    const exits = [...this.threads].map((thread) => {
      if (thread.task) this.finish(thread.task, shutdownOutcome());
      return thread.worker.terminate();
    });
    this.threads.clear();
    await Promise.all(exits);
  }

  /** Hands queued jobs to idle threads, starting threads while under the limit. */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const idle = [...this.threads].find((thread) => thread.ready && !thread.task);
      if (idle) {
        this.assign(idle, this.queue.shift()!);
        continue;
      }
      const starting = [...this.threads].filter((thread) => !thread.ready).length;
      if (this.threads.size < this.settings.threads && starting < this.queue.length) {
        this.spawn();
        continue;
      }
      return;
    }
  }

  private spawn(): void {
    const cancel = new Int32Array(new SharedArrayBuffer(4));
    const data: ThreadData = { cancel };
    const worker = new Worker(threadBootstrap(), { eval: true, workerData: data });
    const thread: PoolThread = { worker, cancel, ready: false };
    this.threads.add(thread);
    this.startedThreads += 1;
    worker.on('message', (message: FromThread) => this.onMessage(thread, message));
    worker.on('error', (error) => this.onExit(thread, `the sandbox thread failed: ${error.message}`));
    worker.on('exit', (code) => this.onExit(thread, `the sandbox thread exited (code ${code})`));
  }

  private assign(thread: PoolThread, task: Task): void {
    thread.task = task;
    task.thread = thread;
    thread.worker.ref();
    const { timeoutMs } = task.request;
    const job: CodeJob = { ...task.request, deadline: Date.now() + timeoutMs, limits: this.limits };
    // Past the deadline and the grace, the interrupt handler did not get its turn: stop the thread from outside.
    task.timer = setTimeout(
      () => this.stopThread(thread, failure('SANDBOX_TIMEOUT', `the code ran longer than ${timeoutMs} ms`)),
      timeoutMs + HARD_STOP_GRACE_MS,
    );
    thread.worker.postMessage({ kind: 'run', id: task.id, job } satisfies ToThread);
  }

  private cancel(task: Task): void {
    const thread = task.thread;
    if (!thread) {
      this.queue.splice(this.queue.indexOf(task), 1);
      this.finish(task, failure('SANDBOX_CANCELLED', 'the run was cancelled'));
      return;
    }
    Atomics.store(thread.cancel, 0, task.id);
    thread.worker.postMessage({ kind: 'cancel', id: task.id } satisfies ToThread);
    clearTimeout(task.timer);
    task.timer = setTimeout(() => this.stopThread(thread, failure('SANDBOX_CANCELLED', 'the run was cancelled')), HARD_STOP_GRACE_MS);
  }

  private onMessage(thread: PoolThread, message: FromThread): void {
    if (message.kind === 'ready') {
      thread.ready = true;
      thread.worker.unref();
      this.pump();
      return;
    }
    const task = thread.task;
    if (!task || task.id !== message.id) return;
    if (message.kind === 'log') return task.hooks.onLog(message.level, message.message);
    this.release(thread);
    this.finish(task, message.outcome);
    this.pump();
  }

  /** The thread ended (crash, `process.exit` after a fault, or termination): fail its job and let `pump` replace it. */
  private onExit(thread: PoolThread, reason: string): void {
    if (!this.threads.delete(thread)) return;
    const task = thread.task;
    if (task) this.finish(task, failure('SANDBOX_CRASHED', reason, true));
    else if (!thread.ready && this.queue.length > 0) {
      // A thread that cannot even start fails the oldest waiting job, so a broken set-up cannot loop forever.
      this.finish(this.queue.shift()!, failure('SANDBOX_CRASHED', reason, true));
    }
    this.pump();
  }

  /** Answers the thread's job with `outcome` and terminates the thread; `pump` starts a fresh one when needed. */
  private stopThread(thread: PoolThread, outcome: CodeOutcome): void {
    const task = thread.task;
    this.threads.delete(thread);
    if (task) this.finish(task, outcome);
    void thread.worker.terminate();
    this.pump();
  }

  private release(thread: PoolThread): void {
    thread.task = undefined;
    thread.worker.unref();
  }

  private finish(task: Task, outcome: CodeOutcome): void {
    clearTimeout(task.timer);
    task.hooks.signal.removeEventListener('abort', task.onAbort);
    if (task.thread?.task === task) this.release(task.thread);
    task.resolve(outcome);
  }
}

/**
 * The thread's entry as `eval` code: under tsx (tests, `npm start`) the .ts
 * entry needs tsx's require hook, which worker threads do not inherit from
 * `--import tsx`; the compiled .js entry in dist/ loads as is.
 */
function threadBootstrap(): string {
  const register = THREAD_ENTRY.endsWith('.ts') ? `require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();\n` : '';
  return `${register}require(${JSON.stringify(THREAD_ENTRY)});`;
}

function failure(type: SandboxErrorType, message: string, retryable = false): CodeOutcome {
  return { ok: false, type, message, retryable };
}

function shutdownOutcome(): CodeOutcome {
  return failure('SANDBOX_SHUTDOWN', 'the worker is shutting down', true);
}

let shared: CodeExecPool | undefined;

/** The process's pool with the default settings, for activities created without one (tests, tools). Its idle threads never hold the process open. */
export function sharedCodeExecPool(): CodeExecPool {
  shared ??= new CodeExecPool();
  return shared;
}
