/**
 * code-exec on its thread pool: scripts never block the event loop, stop at
 * their deadline (also when QuickJS polls its interrupt handler too rarely),
 * stop on cancellation, cross no cap without a clear non-retryable failure,
 * and the pool reuses, replaces and closes its threads.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CodeExecPool, HARD_STOP_GRACE_MS } from '../../activities/plugins/code-exec-pool';
import { codeExec } from '../../activities/plugins/code-exec';
import { CODE_EXEC_DEFAULTS, type CodeExecSettings } from '../../config/config';
import { failure, pluginContext } from '../support/plugin-calls';

interface RunOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  network?: unknown;
  organizationId?: string;
}

function run(pool: CodeExecPool, code: string, options: RunOptions = {}) {
  const lines: string[] = [];
  const { ctx } = pluginContext(
    { code, network: options.network, returns: 'output' },
    { pluginType: 'code-exec', timeoutMs: options.timeoutMs ?? 5_000, organizationId: options.organizationId ?? '1' },
  );
  const result = codeExec({
    ...ctx,
    inputs: { n: 3, nested: { list: [1, 'two', null] } },
    signal: options.signal ?? new AbortController().signal,
    codeExecPool: pool,
    log: (_level, message) => lines.push(message),
  });
  return { result, lines };
}

/**
 * How late a 10 ms timer fires, sampled back to back until `until` settles.
 * Were the loop blocked, the few samples would each be about the whole run late.
 */
async function timerLateness(until: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void until.finally(() => (settled = true)).catch(() => undefined);
  const samples: number[] = [];
  while (!settled) {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 10));
    samples.push(performance.now() - started - 10);
  }
  return samples.sort((a, b) => a - b);
}

describe('code-exec thread pool', function () {
  this.timeout(30_000);
  const pools: CodeExecPool[] = [];
  const pool = (settings: Partial<CodeExecSettings> = {}) => {
    const created = new CodeExecPool({ ...CODE_EXEC_DEFAULTS, threads: 2, ...settings });
    pools.push(created);
    return created;
  };
  after(() => Promise.all(pools.map((p) => p.close())));

  it('keeps the event loop responsive while a script spins, and runs another script meanwhile', async () => {
    const threads = pool({ threadsPerOrganization: 2 });
    await Promise.all([run(threads, 'return 1').result, run(threads, 'return 1').result]);
    assert.equal(threads.started, 2);
    const busy = run(threads, 'while (true) {}', { timeoutMs: 1_000 }).result;
    const busyFailure = failure(busy);
    const lateness = timerLateness(busyFailure);
    const started = Date.now();
    assert.deepEqual((await run(threads, 'return inputs.n * 2').result).outputs, { result: 6 });
    const answered = Date.now() - started;
    assert.ok(answered < 500, `a second script answered after ${answered} ms while the first spun`);
    assert.equal((await busyFailure).type, 'SANDBOX_TIMEOUT');
    // p95, not the maximum: on a loaded machine the OS alone may hold the thread back once; a blocked loop fails both by far.
    const samples = await lateness;
    const p95 = samples[Math.ceil(samples.length * 0.95) - 1];
    const worst = samples[samples.length - 1];
    assert.ok(samples.length > 20, `only ${samples.length} timer turns in a second`);
    assert.ok(p95 < 100, `a 10 ms timer fired ${Math.round(p95)} ms late (p95)`);
    assert.ok(worst < 500, `a 10 ms timer fired up to ${Math.round(worst)} ms late`);
  });

  it('stops while (true) {} within 50 ms of a 100 ms deadline, with a clear timeout error', async () => {
    const threads = pool();
    await run(threads, 'return 1').result;
    const started = Date.now();
    const timedOut = await failure(run(threads, 'while (true) {}', { timeoutMs: 100 }).result);
    const elapsed = Date.now() - started;
    assert.deepEqual(
      [timedOut.type, timedOut.nonRetryable, timedOut.message],
      ['SANDBOX_TIMEOUT', true, 'the code ran longer than 100 ms'],
    );
    assert.ok(elapsed < 150, `stopped after ${elapsed} ms`);
    assert.equal(threads.started, 1, 'the interrupt handler stopped it: the thread lives on');
  });

  it('terminates and replaces a thread whose loop QuickJS polls too rarely to interrupt in time', async () => {
    const threads = pool({ threads: 1 });
    await run(threads, 'return 1').result;
    // Every turn searches 200 KB; QuickJS checks its interrupt handler every 10,000 turns (seconds here).
    const started = Date.now();
    const timedOut = await failure(run(threads, "const s = 'x'.repeat(2e5); for (;;) s.indexOf('y');", { timeoutMs: 100 }).result);
    const elapsed = Date.now() - started;
    assert.equal(timedOut.type, 'SANDBOX_TIMEOUT');
    assert.ok(elapsed < 100 + HARD_STOP_GRACE_MS + 50, `stopped after ${elapsed} ms`);
    assert.deepEqual((await run(threads, 'return 2').result).outputs, { result: 2 });
    assert.equal(threads.started, 2, 'a fresh thread took the next job');
  });

  it('reuses its threads, and replaces one that fails to free its sandbox', async () => {
    const threads = pool({ threads: 1 });
    for (let i = 0; i < 5; i++) assert.deepEqual((await run(threads, `return ${i}`).result).outputs, { result: i });
    assert.equal(threads.started, 1);
    // A caught stack overflow leaves QuickJS unable to free its runtime: the answer still arrives, then the thread is replaced.
    const overflow = await run(threads, 'function f() { return f(); } try { f(); } catch (e) { return String(e); }').result;
    assert.deepEqual(overflow.outputs, { result: 'InternalError: stack overflow' });
    assert.deepEqual((await run(threads, 'return inputs.nested').result).outputs, { list: [1, 'two', null] });
  });

  it('stops a spinning script when the activity is cancelled, and drops a queued one', async () => {
    const threads = pool({ threads: 1 });
    await run(threads, 'return 1').result;
    const controller = new AbortController();
    const spinning = failure(run(threads, 'while (true) {}', { signal: controller.signal }).result);
    const queuedController = new AbortController();
    const queued = failure(run(threads, 'return 1', { signal: queuedController.signal }).result);
    queuedController.abort();
    assert.equal((await queued).type, 'SANDBOX_CANCELLED');
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const cancelled = await spinning;
    assert.deepEqual([cancelled.type, cancelled.nonRetryable], ['SANDBOX_CANCELLED', true]);
    assert.ok(Date.now() - started < 100 + 100, 'stopped soon after the cancellation');
    assert.equal(threads.started, 1, 'the interrupt handler saw the cancellation: the thread lives on');
  });

  it('caps the number of log lines, even when the code catches the error', async () => {
    const threads = pool({ maxLogLines: 100 });
    const { result, lines } = run(threads, 'for (;;) { try { console.log("line"); } catch (e) {} }');
    const capped = await failure(result);
    assert.deepEqual(
      [capped.type, capped.nonRetryable, capped.message],
      ['SANDBOX_LOG_LIMIT', true, 'the code wrote more than 100 log lines'],
    );
    assert.equal(lines.length, 100);
  });

  it('caps the bytes of log lines', async () => {
    const threads = pool({ maxLogBytes: 4096 });
    const { result, lines } = run(threads, 'for (let i = 0; i < 100; i++) log.info("x".repeat(1000)); return "done"');
    const capped = await failure(result);
    assert.deepEqual(
      [capped.type, capped.nonRetryable, capped.message],
      ['SANDBOX_LOG_LIMIT', true, 'the code wrote more than 4096 bytes of logs'],
    );
    assert.equal(lines.length, 4);
  });

  it('caps the size of the result, measured as JSON', async () => {
    const threads = pool({ maxResultBytes: 2048 });
    assert.deepEqual((await run(threads, 'return { text: "é".repeat(1000) }').result).outputs, { text: 'é'.repeat(1000) });
    const multiByte = await failure(run(threads, 'return { text: "é".repeat(1100) }').result);
    assert.deepEqual([multiByte.type, multiByte.nonRetryable], ['SANDBOX_RESULT_TOO_LARGE', true]);
    const huge = await failure(run(threads, 'return Array.from({ length: 1e5 }, (_, i) => ({ i }))').result);
    assert.deepEqual([huge.type, huge.message], ['SANDBOX_RESULT_TOO_LARGE', 'the result is over 2048 bytes of JSON']);
  });

  it('caps the body of a fetch response inside the sandbox, reading it as a stream', async () => {
    let sent = 0;
    const server = http.createServer((req, res) => {
      if (req.url === '/small') return void res.end('x'.repeat(1000));
      // Streams far more than the cap, without a content-length: the reader must stop early.
      const chunk = Buffer.alloc(16 * 1024, 'y');
      const write = () => {
        while (sent < 64 * 1024 * 1024 && res.write(chunk)) sent += chunk.length;
        if (sent < 64 * 1024 * 1024) res.once('drain', write);
        else res.end();
      };
      write();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const threads = pool({ maxFetchBodyBytes: 4096 });
      const network = { allowedHosts: ['127.0.0.1'] };
      const small = await run(threads, `return { n: (await (await fetch('${base}/small')).text()).length }`, { network }).result;
      assert.deepEqual(small.outputs, { n: 1000 });
      const big = await failure(run(threads, `await (await fetch('${base}/big')).text();`, { network }).result);
      assert.deepEqual([big.type, big.nonRetryable, big.message], ['SANDBOX_ERROR', true, 'Error: fetch: response body over 4096 bytes']);
      assert.ok(sent < 16 * 1024 * 1024, `the server streamed ${sent} bytes before the reader stopped`);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  describe('shares between organizations', () => {
    /** A script that says it started (its log line arrives while it spins), then spins until cancelled or its deadline. */
    const spin = (threads: CodeExecPool, organizationId: string, timeoutMs = 60_000) => {
      const controller = new AbortController();
      const started = new Promise<void>((resolve) => {
        const { ctx } = pluginContext(
          { code: 'log.info("started"); while (true) {}' },
          { pluginType: 'code-exec', timeoutMs, organizationId },
        );
        const result = codeExec({ ...ctx, signal: controller.signal, codeExecPool: threads, log: () => resolve() });
        spinning.push({ controller, ended: failure(result).finally(() => ended.push(organizationId)), started: false });
      });
      void started.then(() => (spinning.find((s) => s.controller === controller)!.started = true));
      return started;
    };
    let spinning: Array<{ controller: AbortController; ended: Promise<unknown>; started: boolean }> = [];
    let ended: string[] = [];
    beforeEach(() => {
      spinning = [];
      ended = [];
    });
    afterEach(async () => {
      for (const { controller } of spinning) controller.abort();
      await Promise.all(spinning.map((s) => s.ended));
    });

    it("runs another organization's script while one organization's flood holds its share (half the pool by default)", async () => {
      const threads = pool({ threads: 4 });
      const flood = Array.from({ length: 12 }, () => spin(threads, 'flood'));
      await Promise.race([Promise.all(flood.slice(0, 2)), new Promise((resolve) => setTimeout(resolve, 20_000))]);
      assert.deepEqual((await run(threads, 'return inputs.n * 2', { organizationId: 'other' }).result).outputs, { result: 6 });
      assert.deepEqual(ended, [], 'the other organization answered while every flood script still spun');
      assert.equal(spinning.filter((s) => s.started).length, 2, 'the flood held two of the four threads, no more');
    });

    it('gives a freed thread to the organization served longest ago, then keeps each organization in order', async () => {
      const threads = pool({ threads: 1 });
      const order: string[] = [];
      const answer = (organizationId: string, name: string) =>
        run(threads, `return "${name}"`, { organizationId }).result.then((result) => order.push(String(result.outputs?.result)));
      await spin(threads, 'a');
      const answers = [answer('a', 'a2'), answer('a', 'a3'), answer('b', 'b1'), answer('b', 'b2'), answer('c', 'c1')];
      spinning[0].controller.abort();
      await Promise.all(answers);
      assert.deepEqual(order, ['b1', 'c1', 'a2', 'b2', 'a3']);
    });

    it("bounds one organization's queue, with a retryable SANDBOX_BUSY, while other organizations still queue", async () => {
      const threads = pool({ threads: 1, queuePerOrganization: 2 });
      await spin(threads, 'a');
      const queued = [run(threads, 'return 1', { organizationId: 'a' }).result, run(threads, 'return 2', { organizationId: 'a' }).result];
      const busy = await failure(run(threads, 'return 3', { organizationId: 'a' }).result);
      assert.deepEqual(
        [busy.type, busy.nonRetryable, busy.message],
        ['SANDBOX_BUSY', false, '2 code-exec scripts of this organization already wait for a thread (CODE_EXEC_QUEUE_PER_ORGANIZATION)'],
      );
      const other = run(threads, 'return 4', { organizationId: 'b' }).result;
      spinning[0].controller.abort();
      assert.deepEqual(
        (await Promise.all([...queued, other])).map((result) => result.outputs),
        [{ result: 1 }, { result: 2 }, { result: 4 }],
      );
    });

    it('counts the wait for a thread in the timeout: a script that cannot start in time fails without running', async () => {
      const threads = pool({ threads: 1 });
      // Held until aborted below, not by its own timeout: on a loaded machine the thread's start-up could eat most of a
      // short one, and the thread would come free before the 200 ms job's deadline.
      await spin(threads, 'a');
      const never = failure(run(threads, 'return 1', { timeoutMs: 200 }).result);
      const late = failure(run(threads, 'while (true) {}', { timeoutMs: 3_000, organizationId: 'b' }).result);
      const timedOut = await never;
      assert.deepEqual(
        [timedOut.type, timedOut.nonRetryable, timedOut.message],
        ['SANDBOX_TIMEOUT', true, 'the code waited 200 ms for a code-exec thread and did not start'],
      );
      // The thread comes free: the late script starts, having waited at least as long as the 200 ms one did.
      spinning[0].controller.abort();
      const overran = await late;
      assert.equal(overran.type, 'SANDBOX_TIMEOUT');
      assert.match(overran.message, /^the code ran past its 3000 ms timeout, \d+ ms of which it waited for a code-exec thread$/);
    });
  });

  it('fails running and later jobs once closed (worker shutdown), as retryable', async () => {
    const threads = pool();
    const running = failure(run(threads, 'while (true) {}').result);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await threads.close();
    const stopped = await running;
    assert.deepEqual([stopped.type, stopped.nonRetryable], ['SANDBOX_SHUTDOWN', false]);
    assert.equal((await failure(run(threads, 'return 1').result)).type, 'SANDBOX_SHUTDOWN');
  });
});
