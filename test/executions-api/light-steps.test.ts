/**
 * Light steps end to end: an http-request step whose timeout is at most
 * LIGHT_STEP_MAX_TIMEOUT_MS runs as a local activity (no activity task in the
 * history), a long or heavy one as an ordinary activity; a light step that
 * fails retries by its policy; cancel and terminate stop a run of light steps
 * mid-way. Every history replays (useExecEnv).
 */
import assert from 'node:assert/strict';
import { chain, step, trigger } from '../support/definitions';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor, type ExecEnv } from './support';

/** What Temporal recorded for one execution: its activity tasks by type, and its local activity markers. */
async function recordedCalls(env: ExecEnv, executionId: string): Promise<{ activityTasks: number; localMarkers: number }> {
  // Once Temporal has closed the run: its last workflow task's markers land a moment after the row reads finished.
  const handle = env.temporal.client.workflow.getHandle(executionId);
  await handle.result().catch(() => undefined);
  const events = (await handle.fetchHistory()).events ?? [];
  return {
    activityTasks: events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callPlugin').length,
    localMarkers: events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity').length,
  };
}

describe('executions API: light steps', function () {
  this.timeout(90_000);
  const { env, org } = useExecEnv();
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path.startsWith('/flaky')) res.statusCode = hits[path] < 3 ? 503 : 200;
    if (path.startsWith('/missing')) res.statusCode = 404;
    res.setHeader('content-type', 'application/json');
    const delay = path.startsWith('/slow') ? 300 : 0;
    setTimeout(() => res.end(JSON.stringify({ path, attempt: hits[path] })), delay);
  });

  const httpStep = (id: string, path: string, timeout: string, extra: Record<string, unknown> = {}) =>
    step(id, 'http-request', { url: `${server.base}${path}` }, { timeout, ...extra });

  it('runs short http-request steps as local activities, long and heavy ones as activities', async () => {
    const key = 'mixed';
    await publish(env, org, {
      name: 'Mixed',
      key,
      steps: chain(
        trigger(),
        httpStep('a', `/${key}/a`, '5s'),
        httpStep('b', `/${key}/b`, '2s'),
        httpStep('long', `/${key}/long`, '60s'),
        step('code', 'code-exec', { code: 'return { v: 1 }' }, { timeout: '5s' }),
        httpStep('c', `/${key}/c`, '10s'),
      ),
      outputs: { a: '${{ steps.a.outputs.body.path }}', c: '${{ steps.c.outputs.body.path }}' },
    });
    const id = await execute(env, org, key);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual([done.status, done.outputs], ['completed', { a: `/${key}/a`, c: `/${key}/c` }]);
    for (const path of ['a', 'b', 'long', 'c']) assert.equal(hits[`/${key}/${path}`], 1, path);

    const { activityTasks, localMarkers } = await recordedCalls(env, id);
    // The 60 s step and code-exec are activity tasks; a, b and c are local activities (beside the persistence ones).
    assert.equal(activityTasks, 2);
    assert.ok(localMarkers >= 3, `${localMarkers} local activity markers`);
  });

  it('runs light steps of parallel branches one at a time, in an order that replays', async () => {
    const key = 'branches';
    const branch = (name: string) =>
      Array.from({ length: 5 }, (_, i) =>
        httpStep(`${name}${i}`, `/${key}/${name}${i}`, '5s', { dependsOn: [i === 0 ? 'start' : `${name}${i - 1}`] }),
      );
    await publish(env, org, {
      name: 'Branches',
      key,
      steps: [
        trigger(),
        ...branch('a'),
        ...branch('b'),
        ...branch('c'),
        step('join', 'log', { message: 'joined' }, { dependsOn: ['a4', 'b4', 'c4'] }),
      ],
    });
    const ids = await Promise.all([1, 2, 3].map(() => execute(env, org, key)));
    for (const id of ids) assert.equal((await waitFor(env, org, id, finished)).status, 'completed');
    assert.equal(hits[`/${key}/b4`], 3);
    // useExecEnv replays every history of the file when it stops.
  });

  it('retries a light step that fails by its policy', async () => {
    const key = 'flaky-light';
    await publish(env, org, {
      name: 'Flaky light',
      key,
      steps: chain(
        trigger(),
        httpStep('flaky', `/flaky/${key}`, '5s', {
          errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '50ms', backoffStrategy: 'fixed' } },
        }),
      ),
      outputs: { attempt: '${{ steps.flaky.outputs.body.attempt }}' },
    });
    const id = await execute(env, org, key);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual([done.status, done.outputs], ['completed', { attempt: 3 }]);
    assert.equal(hits[`/flaky/${key}`], 3);
    assert.equal((await recordedCalls(env, id)).activityTasks, 0);
  });

  // A run of light steps sees a cancel request at its next workflow task: when the chain waits on something
  // else, or at Temporal's workflow task heartbeat (80% of the 10 s workflow task timeout). Terminate is the
  // server's alone.
  it('keeps the step records of a run whose light step fails', async () => {
    const key = 'failing-light';
    await publish(env, org, {
      name: 'Failing light',
      key,
      steps: chain(
        trigger(),
        httpStep('ok', `/${key}/ok`, '5s'),
        step('note', 'log', { message: 'before' }),
        httpStep('bad', `/missing/${key}`, '5s'),
      ),
    });
    const id = await execute(env, org, key);
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'failed');
    const steps = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`));
    const status = Object.fromEntries((steps.body.data as Array<{ stepId: string; status: string }>).map((s) => [s.stepId, s.status]));
    assert.deepEqual(status, { start: 'completed', ok: 'completed', note: 'completed', bad: 'failed' });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`));
    assert.ok(
      (logs.body.data as Array<{ message: string }>).some((entry) => entry.message === 'before'),
      JSON.stringify(logs.body),
    );
  });

  for (const action of ['cancel', 'terminate'] as const) {
    it(`${action}s a run of light steps mid-way`, async () => {
      const key = `slow-${action}`;
      const steps = Array.from({ length: 40 }, (_, i) => httpStep(`s${i + 1}`, `/slow/${key}/${i + 1}`, '5s'));
      await publish(env, org, { name: `Slow ${action}`, key, steps: chain(trigger(), ...steps) });
      const id = await execute(env, org, key);
      // About 300 ms a step, 12 s in all: some have run, many have not.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const asked = Date.now();
      const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/${action}`)).send({ reason: 'enough' });
      assert.ok([200, 202].includes(res.status), JSON.stringify(res.body));
      const done = await waitFor(env, org, id, finished);
      assert.equal(done.status, action === 'cancel' ? 'cancelled' : 'terminated');
      const ran = Object.keys(hits).filter((path) => path.startsWith(`/slow/${key}/`)).length;
      assert.ok(ran > 0 && ran < 40, `${ran} of 40 steps ran`);
      assert.ok(Date.now() - asked < 11_000, `${action} took ${Date.now() - asked} ms`);
    });
  }
});
