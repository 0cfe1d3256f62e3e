/**
 * A code-exec pool thread (node:worker_threads): loads QuickJS once, says
 * `ready`, then runs the jobs the pool sends, one at a time, posting log
 * lines as they come and the outcome before disposing the sandbox.
 *
 * Cancellation reaches a spinning script through the shared cancel slot that
 * the interrupt handler reads; a `cancel` message also aborts what waits on
 * the network. After an unexpected error (a bug, or QuickJS failing to free a
 * runtime) the thread exits once the outcome is out, and the pool starts a
 * fresh one: a thread never carries a damaged WebAssembly instance forward.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { getQuickJS, type QuickJSWASMModule } from 'quickjs-emscripten';
import type { EgressPolicy } from '../egress/policy';
import type { CodeJob, CodeOutcome, FromThread, ThreadData, ToThread } from './code-exec-protocol';
import { runCode } from './code-exec-sandbox';

const port = parentPort!;
const { cancel } = workerData as ThreadData;
const post = (message: FromThread) => port.postMessage(message);

/** Aborts the running job's network waits on a `cancel` message. */
let running: { id: number; controller: AbortController } | undefined;

/**
 * One object per distinct policy: each job brings its own copy, and the egress
 * layer keeps its HTTP agent (and open connections) per policy object.
 */
const policies = new Map<string, EgressPolicy>();
function samePolicy(policy: EgressPolicy): EgressPolicy {
  const key = JSON.stringify(policy);
  const known = policies.get(key);
  if (known) return known;
  policies.set(key, policy);
  return policy;
}

async function run(quickjs: QuickJSWASMModule, id: number, job: CodeJob): Promise<void> {
  const controller = new AbortController();
  running = { id, controller };
  let reported = false;
  const report = (outcome: CodeOutcome) => {
    reported = true;
    post({ kind: 'done', id, outcome });
  };
  try {
    await runCode(
      quickjs,
      { ...job, egress: samePolicy(job.egress) },
      {
        signal: controller.signal,
        cancelled: () => Atomics.load(cancel, 0) === id,
        onLog: (level, message, metadata) => post({ kind: 'log', id, level, message, ...(metadata ? { metadata } : {}) }),
        report,
      },
    );
  } catch (error) {
    if (!reported) report({ ok: false, type: 'SANDBOX_CRASHED', message: `the sandbox failed: ${String(error)}`, retryable: true });
    process.exit(1);
  } finally {
    running = undefined;
  }
}

void getQuickJS().then((quickjs) => {
  // Jobs arrive one at a time (the pool waits for `done`), so they run in order.
  let queue = Promise.resolve();
  port.on('message', (message: ToThread) => {
    if (message.kind === 'cancel') {
      if (running?.id === message.id) running.controller.abort();
      return;
    }
    queue = queue.then(() => run(quickjs, message.id, message.job));
  });
  post({ kind: 'ready' });
});
