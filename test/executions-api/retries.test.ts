/**
 * Error handling end to end: a retry policy (snake_case spelling) turns two
 * server errors into a success on the third attempt; a timeout fails a step,
 * whose fallback step reads the cause; and an unhandled failure fails the
 * execution with that cause.
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: retries, timeouts and fallbacks', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path === '/flaky') {
      res.statusCode = hits[path] < 3 ? 503 : 200;
      return void res.end(JSON.stringify({ attempt: hits[path] }));
    }
    if (path === '/slow') return void setTimeout(() => res.end('late'), 1500);
    res.statusCode = 404;
    res.end('no');
  });

  it('retries by policy, then routes a timed-out step to its fallback', async () => {
    await publish(env, org, {
      name: 'Resilient',
      key: 'resilient',
      steps: [
        { id: 'start', type: 'trigger', plugin_type: 'manual', config: {} },
        {
          id: 'flaky',
          type: 'module',
          plugin_type: 'http-request',
          config: { url: `${server.base}/flaky` },
          depends_on: ['start'],
          error_handling: { retry_policy: { max_attempts: 3, initial_interval: '100ms', backoff_strategy: 'exponential', jitter: 0.3 } },
        },
        {
          id: 'slow',
          type: 'module',
          plugin_type: 'http-request',
          config: { url: `${server.base}/slow`, timeout: '200ms' },
          depends_on: ['flaky'],
          error_handling: { fallback_step: 'rescue' },
        },
        { id: 'rescue', type: 'module', plugin_type: 'set-variable', config: { path: 'why', value: '${{ steps.slow.error.code }}' } },
      ],
      outputs: { flaky: '${{ steps.flaky.outputs.statusCode }}', why: '${{ variables.why }}' },
    });
    const done = await waitFor(env, org, await execute(env, org, 'resilient'), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { flaky: 200, why: 'HTTP_TIMEOUT' });
    assert.equal(hits['/flaky'], 3, 'two failures and one success');
  });

  it('fails the execution with the cause of an unhandled failure', async () => {
    await publish(env, org, {
      name: 'Fragile',
      key: 'fragile',
      steps: [
        trigger(),
        { id: 'missing', type: 'module', pluginType: 'http-request', config: { url: `${server.base}/nothing-here` }, dependsOn: ['start'] },
        { id: 'never', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['missing'] },
      ],
    });
    const done = await waitFor(env, org, await execute(env, org, 'fragile'), finished);
    assert.equal(done.status, 'failed');
    assert.deepEqual(done.error, { type: 'HTTP_4XX', message: 'HTTP 404 Not Found', stepId: 'missing' });
  });
});
