/**
 * The code-exec thread pool: scripts run in node:worker_threads, never on the
 * worker's event loop, so a busy script cannot stall the other activities or
 * (under `npm start`, one process) the API.
 *
 * Threads start on demand up to `threads`, load QuickJS once and are reused.
 * Organizations share them fairly (./code-exec-shares.ts): one organization holds at most
 * `threadsPerOrganization` threads at once (default half the pool, rounded
 * up), and a freed thread goes to the waiting organization holding the fewest,
 * the one served longest ago first; within an organization, jobs run in
 * order. So a flood of one organization's scripts queues behind itself while
 * another organization's script takes the next free thread. At most
 * `queuePerOrganization` jobs of one organization wait; more fail at once
 * (`SANDBOX_BUSY`, retryable).
 *
 * Each job has an absolute deadline, `timeoutMs` after the pool received it:
 * the wait for a thread counts, so a step never outlives its timeout (nor the
 * activity's Temporal StartToClose, a few seconds longer). A job still waiting
 * at its deadline fails `SANDBOX_TIMEOUT` without starting. The thread's
 * interrupt handler stops the code there; should QuickJS not poll it
 * in time (it polls every 10,000 branches and calls, see
 * ./code-exec-sandbox.ts), the pool terminates the thread
 * `HARD_STOP_GRACE_MS` later and starts another. Cancellation sets the
 * thread's shared cancel slot (read by the interrupt handler) and, if the
 * thread does not answer in time, terminates it too. A thread that dies fails
 * its job and is replaced. `close()` stops everything (worker shutdown).
 */
import { Worker } from 'node:worker_threads';
import { CODE_EXEC_DEFAULTS, type CodeExecSettings } from '../../config/config';
import {
  timeoutMessage,
  type CodeJob,
  type CodeLimits,
  type CodeOutcome,
  type FromThread,
  type LogLevel,
  type LogMetadata,
  type SandboxErrorType,
  type ThreadData,
  type ToThread,
} from './code-exec-protocol';
import { OrganizationShares, type Share } from './code-exec-shares';
import { threadBootstrap } from './code-exec-thread-entry';

/** How long past its deadline (or its cancellation) a job's thread may take before it is terminated. */
export const HARD_STOP_GRACE_MS = 30;

/** One script to run, and the organization whose share of the threads it uses. */
export type CodeRequest = Omit<CodeJob, 'deadline' | 'waitedMs' | 'limits'> & { organizationId: string };

export interface CodeRunHooks {
  /** Cancels the run (activity cancellation): queued, it never starts; running, it is stopped. */
  signal: AbortSignal;
  onLog: (level: LogLevel, message: string, metadata?: LogMetadata) => void;
}

interface Task {
  id: number;
  request: CodeRequest;
  hooks: CodeRunHooks;
  resolve: (outcome: CodeOutcome) => void;
  /** When the pool received it (performance.now()), and the epoch milliseconds it must be done by. */
  receivedAt: number;
  deadline: number;
  thread?: PoolThread;
  /** Waiting: fails the job at its deadline. Running: stops the thread past the deadline and the grace. */
  timer?: NodeJS.Timeout;
  done?: boolean;
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
  private readonly shares: OrganizationShares<Task>;
  private nextId = 1;
  private closed = false;
  private startedThreads = 0;

  constructor(private readonly settings: CodeExecSettings = CODE_EXEC_DEFAULTS) {
    const { threads, threadsPerOrganization, queuePerOrganization: _queue, ...limits } = settings;
    this.limits = limits;
    this.shares = new OrganizationShares(Math.min(threads, threadsPerOrganization ?? Math.ceil(threads / 2)));
  }

  /** Threads started so far, replacements included (reuse and replacement show in it). */
  get started(): number {
    return this.startedThreads;
  }

  /** Runs one script; always resolves (a failure is an outcome). */
  run(request: CodeRequest, hooks: CodeRunHooks): Promise<CodeOutcome> {
    if (this.closed) return Promise.resolve(shutdownOutcome());
    if (hooks.signal.aborted) return Promise.resolve(failure('SANDBOX_CANCELLED', 'the run was cancelled'));
    const share = this.shares.of(request.organizationId);
    if (share.waiting.length >= this.settings.queuePerOrganization) {
      return Promise.resolve(
        failure(
          'SANDBOX_BUSY',
          `${share.waiting.length} code-exec scripts of this organization already wait for a thread (CODE_EXEC_QUEUE_PER_ORGANIZATION)`,
          true,
        ),
      );
    }
    return new Promise<CodeOutcome>((resolve) => {
      const task: Task = {
        id: this.nextId++,
        request,
        hooks,
        resolve,
        receivedAt: performance.now(),
        deadline: Date.now() + request.timeoutMs,
        onAbort: () => this.cancel(task),
      };
      hooks.signal.addEventListener('abort', task.onAbort, { once: true });
      share.waiting.push(task);
      this.pump();
      if (!task.thread && !task.done) {
        const { timeoutMs } = request;
        task.timer = setTimeout(() => {
          this.unqueue(task);
          this.finish(task, failure('SANDBOX_TIMEOUT', `the code waited ${timeoutMs} ms for a code-exec thread and did not start`));
        }, timeoutMs);
      }
    });
  }

  /** Fails waiting jobs, terminates every thread (running jobs fail) and waits for them to exit. */
  async close(): Promise<void> {
    this.closed = true;
    for (const share of this.shares.all()) for (const task of share.waiting.splice(0)) this.finish(task, shutdownOutcome());
    const exits = [...this.threads].map((thread) => {
      if (thread.task) this.finish(thread.task, shutdownOutcome());
      return thread.worker.terminate();
    });
    this.threads.clear();
    await Promise.all(exits);
  }

  /** Hands waiting jobs to idle threads, fairly, starting threads while under the limit. */
  private pump(): void {
    while (!this.closed) {
      const share = this.shares.next();
      if (!share) return;
      const idle = [...this.threads].find((thread) => thread.ready && !thread.task);
      if (idle) {
        this.assign(idle, share);
        continue;
      }
      const starting = [...this.threads].filter((thread) => !thread.ready).length;
      if (this.threads.size < this.settings.threads && starting < this.shares.startable()) {
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

  /** Gives `thread` the oldest waiting job of `share`. */
  private assign(thread: PoolThread, share: Share<Task>): void {
    const task = this.shares.serve(share);
    thread.task = task;
    task.thread = thread;
    thread.worker.ref();
    clearTimeout(task.timer);
    const { organizationId: _organization, ...request } = task.request;
    // Rounded: a job handed over in the same turn waited a few microseconds, which is no wait.
    const waitedMs = Math.round(performance.now() - task.receivedAt);
    const job: CodeJob = { ...request, deadline: task.deadline, waitedMs, limits: this.limits };
    // Past the deadline and the grace, the interrupt handler did not get its turn: stop the thread from outside.
    task.timer = setTimeout(
      () => this.stopThread(thread, failure('SANDBOX_TIMEOUT', timeoutMessage(request.timeoutMs, waitedMs))),
      Math.max(0, task.deadline - Date.now()) + HARD_STOP_GRACE_MS,
    );
    thread.worker.postMessage({ kind: 'run', id: task.id, job } satisfies ToThread);
  }

  /** Takes a job that never started off its organization's queue. */
  private unqueue(task: Task): void {
    this.shares.unqueue(task.request.organizationId, task);
  }

  private cancel(task: Task): void {
    const thread = task.thread;
    if (!thread) {
      this.unqueue(task);
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
    if (message.kind === 'log') return task.hooks.onLog(message.level, message.message, message.metadata);
    this.finish(task, message.outcome);
    this.pump();
  }

  /** The thread ended (crash, `process.exit` after a fault, or termination): fail its job and let `pump` replace it. */
  private onExit(thread: PoolThread, reason: string): void {
    if (!this.threads.delete(thread)) return;
    const task = thread.task;
    if (task) this.finish(task, failure('SANDBOX_CRASHED', reason, true));
    else if (!thread.ready) {
      // A thread that cannot even start fails the next waiting job, so a broken set-up cannot loop forever.
      const share = this.shares.next();
      if (share) {
        const next = share.waiting.shift()!;
        this.finish(next, failure('SANDBOX_CRASHED', reason, true));
      }
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

  /** Settles a job once: frees its thread and its organization's place, and forgets an organization with nothing left. */
  private finish(task: Task, outcome: CodeOutcome): void {
    if (task.done) return;
    task.done = true;
    clearTimeout(task.timer);
    task.hooks.signal.removeEventListener('abort', task.onAbort);
    if (task.thread?.task === task) {
      task.thread.task = undefined;
      task.thread.worker.unref();
    }
    this.shares.release(task.request.organizationId, task.thread !== undefined);
    task.resolve(outcome);
  }
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
