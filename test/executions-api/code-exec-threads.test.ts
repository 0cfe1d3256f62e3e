/**
 * code-exec end to end on the pool's threads: a spinning script neither
 * stalls the API nor the worker's other activities (same process, as under
 * `npm start`), a 100 ms step timeout ends a `while (true) {}` with
 * SANDBOX_TIMEOUT (not a Temporal activity timeout), and a crossed cap fails
 * the step with its own type.
 */
import assert from 'node:assert/strict';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

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
  const { x, c } = useExecEnv();

  it('answers HTTP requests and runs other code-exec steps while a script spins', async () => {
    await publish(x, c, { name: 'Spin', key: 'spin', ...codeStep('while (true) {}', { timeout: '3s' }) });
    await publish(x, c, { name: 'Quick', key: 'quick', ...codeStep('return 21 * 2') });
    // Warm the path once (thread start, workflow caches) so the timings below are the steady state.
    await waitFor(x, c, await execute(x, c, 'quick'), finished);

    const spinning = await execute(x, c, 'spin');
    await waitFor(x, c, spinning, (body) => body.status === 'running');
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = Date.now();
    const res = await c.auth(x.t.request.get(`/workflows/executions/${spinning}`));
    const answeredIn = Date.now() - started;
    assert.equal(res.status, 200);
    assert.equal(res.body.status, 'running', 'the script still spins');
    assert.ok(answeredIn < 250, `the API answered in ${answeredIn} ms`);

    const quick = await waitFor(x, c, await execute(x, c, 'quick'), finished);
    assert.deepEqual([quick.status, quick.outputs], ['completed', { result: 42 }]);
    const stillSpinning = await c.auth(x.t.request.get(`/workflows/executions/${spinning}`));
    assert.equal(stillSpinning.body.status, 'running', 'the quick run finished while the script spun');

    const spun = await waitFor(x, c, spinning, finished);
    assert.deepEqual(spun.error, { type: 'SANDBOX_TIMEOUT', message: 'the code ran longer than 3000 ms', stepId: 'call' });
  });

  it('fails a while (true) {} with a 100 ms step timeout as SANDBOX_TIMEOUT', async () => {
    await publish(x, c, { name: 'Busy', key: 'busy', ...codeStep('while (true) {}', { timeout: '100ms' }) });
    const done = await waitFor(x, c, await execute(x, c, 'busy'), finished);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { type: 'SANDBOX_TIMEOUT', message: 'the code ran longer than 100 ms', stepId: 'call' });
  });

  it('fails a step that logs without end as SANDBOX_LOG_LIMIT, keeping the lines up to the cap', async () => {
    await publish(x, c, { name: 'Chatty', key: 'chatty', ...codeStep('for (let i = 0; ; i++) console.log("line", i);') });
    const id = await execute(x, c, 'chatty');
    const done = await waitFor(x, c, id, finished);
    assert.deepEqual(done.error, { type: 'SANDBOX_LOG_LIMIT', message: 'the code wrote more than 1000 log lines', stepId: 'call' });
    const logs = await c.auth(x.t.request.get(`/workflows/executions/${id}/logs?limit=1000`));
    const messages = (logs.body.data as Array<{ message: string }>).map((entry) => entry.message);
    assert.ok(messages.includes('line 999'), 'the last line within the cap is recorded');
    assert.ok(!messages.includes('line 1000'), 'nothing past the cap is');
  });
});
