/**
 * code-exec end to end on the pool's threads: a spinning script neither
 * stalls the API nor the worker's other activities (same process, as under
 * `npm start`), a 100 ms step timeout ends a `while (true) {}` with
 * SANDBOX_TIMEOUT (not a Temporal activity timeout), a crossed cap fails
 * the step with its own type, and one organization's never-ending scripts do
 * not hold the threads another organization's script needs.
 */
import assert from 'node:assert/strict';
import { execute, finished, orgContext, publish, useExecEnv, waitFor } from './support';

const codeStep = (code: string, extra: Record<string, unknown> = {}) => ({
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    call: { type: 'module', pluginType: 'code-exec', config: { code }, ...extra },
  },
  connections: [{ from: 'start', to: 'call' }],
  outputs: { result: '${{ steps.call.outputs.result }}' },
});

describe('executions API: code-exec off the event loop', function () {
  this.timeout(60_000);
  // Every run here is one organization's: it may use both threads (its default share would be one).
  const { env, org } = useExecEnv({ codeExec: { threads: 2, threadsPerOrganization: 2 } });

  it('answers HTTP requests and runs other code-exec steps while a script spins', async () => {
    await publish(env, org, { name: 'Spin', key: 'spin', ...codeStep('while (true) {}', { timeout: '3s' }) });
    await publish(env, org, { name: 'Quick', key: 'quick', ...codeStep('return 21 * 2') });
    // Warm the path once (thread start, workflow caches) so the timings below are the steady state.
    await waitFor(env, org, await execute(env, org, 'quick'), finished);

    const spinning = await execute(env, org, 'spin');
    await waitFor(env, org, spinning, (body) => body.status === 'running');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const res = await org.auth(env.t.request.get(`/workflows/executions/${spinning}`));
    const answeredIn = Date.now() - started;
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'running', 'the script still spins');
    assert.ok(answeredIn < 250, `the API answered in ${answeredIn} ms`);

    const quick = await waitFor(env, org, await execute(env, org, 'quick'), finished);
    assert.deepEqual([quick.status, quick.outputs], ['completed', { result: 42 }]);
    const stillSpinning = await org.auth(env.t.request.get(`/workflows/executions/${spinning}`));
    assert.equal(stillSpinning.body.status, 'running', 'the quick run finished while the script spun');

    const spun = await waitFor(env, org, spinning, finished);
    assert.deepEqual(spun.error, { type: 'SANDBOX_TIMEOUT', message: 'the code ran longer than 3000 ms', stepId: 'call' });
  });

  it('fails a while (true) {} with a 100 ms step timeout as SANDBOX_TIMEOUT', async () => {
    await publish(env, org, { name: 'Busy', key: 'busy', ...codeStep('while (true) {}', { timeout: '100ms' }) });
    const done = await waitFor(env, org, await execute(env, org, 'busy'), finished);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { type: 'SANDBOX_TIMEOUT', message: 'the code ran longer than 100 ms', stepId: 'call' });
  });

  it('fails a step that logs without end as SANDBOX_LOG_LIMIT, keeping the lines up to the cap', async () => {
    await publish(env, org, { name: 'Chatty', key: 'chatty', ...codeStep('for (let i = 0; ; i++) console.log("line", i);') });
    const id = await execute(env, org, 'chatty');
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.error, { type: 'SANDBOX_LOG_LIMIT', message: 'the code wrote more than 1000 log lines', stepId: 'call' });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs?limit=1000`));
    const messages = (logs.body.data as Array<{ message: string }>).map((entry) => entry.message);
    assert.ok(messages.includes('line 999'), 'the last line within the cap is recorded');
    assert.ok(!messages.includes('line 1000'), 'nothing past the cap is');
  });
});

describe('executions API: cancelling code-exec', function () {
  this.timeout(60_000);
  // One thread: a script still spinning after its execution was cancelled would hold it, and the next run would wait.
  const { env, org } = useExecEnv({ codeExec: { threads: 1 } });

  it('stops a spinning script when its execution is cancelled (cancellation reaches the activity through heartbeats)', async () => {
    await publish(env, org, { name: 'Spin long', key: 'spin-long', ...codeStep('while (true) {}', { timeout: '50s' }) });
    await publish(env, org, { name: 'Quick', key: 'quick', ...codeStep('return 21 * 2') });
    const id = await execute(env, org, 'spin-long');
    await waitFor(env, org, id, (body) => body.status === 'running');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const cancelled = await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({ reason: 'enough' });
    assert.equal(cancelled.status, 202, JSON.stringify(cancelled.body));
    assert.equal((await waitFor(env, org, id, finished)).status, 'cancelled');
    // The only thread is free again long before the script's 50 s deadline: the script was stopped.
    const started = Date.now();
    const quick = await waitFor(env, org, await execute(env, org, 'quick'), finished);
    assert.deepEqual([quick.status, quick.outputs], ['completed', { result: 42 }]);
    assert.ok(Date.now() - started < 10_000, `the next run waited ${Date.now() - started} ms for the thread`);
  });
});

describe('executions API: code-exec threads shared between organizations', function () {
  this.timeout(120_000);
  // Two threads: each organization may hold one (the default share, half the pool).
  const { env, org } = useExecEnv({ codeExec: { threads: 2 } });

  it("runs another organization's script while one organization's never-ending scripts hold their share", async () => {
    await publish(env, org, { name: 'Spin long', key: 'spin-long', ...codeStep('while (true) {}', { timeout: '50s' }) });
    const other = await orgContext(env);
    await publish(env, other, { name: 'Quick', key: 'quick', ...codeStep('return 21 * 2') });
    const flood: string[] = [];
    for (let i = 0; i < 4; i++) flood.push(await execute(env, org, 'spin-long'));
    for (const id of flood) await waitFor(env, org, id, (body) => body.status === 'running');
    // Time for the flood's activities to reach the pool: without shares they would now hold both threads for 50 s.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    const quick = await waitFor(env, other, await execute(env, other, 'quick'), finished, '', 30_000);
    assert.deepEqual([quick.status, quick.outputs], ['completed', { result: 42 }]);
    for (const id of flood) {
      const res = await org.auth(env.t.request.get(`/workflows/executions/${id}`));
      assert.equal(res.body.status, 'running', 'no flood script had ended when the other organization got its answer');
    }

    for (const id of flood) await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({ reason: 'enough' });
    for (const id of flood) assert.equal((await waitFor(env, org, id, finished, '', 30_000)).status, 'cancelled');
  });
});
