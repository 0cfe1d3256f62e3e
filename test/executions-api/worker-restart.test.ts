/**
 * A worker stopped mid-execution and a new one started: the execution
 * completes, and its step records and log entries are not duplicated (the new
 * worker replays the history from the start, re-running nothing that wrote).
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { createWorker, execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: worker restart', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ withWorker: false });

  const newWorker = () => createWorker(env);

  it('finishes on a new worker without duplicating records', async () => {
    await publish(env, org, {
      name: 'Restartable',
      key: 'restartable',
      steps: [
        trigger(),
        { id: 'before', type: 'module', pluginType: 'log', config: { message: 'before the wait' }, dependsOn: ['start'] },
        {
          id: 'compute',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'console.log("computing"); return { v: 41 + 1 }' },
          dependsOn: ['before'],
        },
        { id: 'wait', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'resume' }, dependsOn: ['compute'] },
        {
          id: 'after',
          type: 'module',
          pluginType: 'log',
          config: { message: 'after the wait: ${{ steps.compute.outputs.v }}' },
          dependsOn: ['wait'],
        },
      ],
      outputs: { v: '${{ steps.compute.outputs.v }}' },
    });

    const first = await newWorker();
    const firstRun = first.run();
    const id = await execute(env, org, 'restartable');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    first.shutdown();
    await firstRun;

    const second = await newWorker();
    const secondRun = second.run();
    try {
      const signalled = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/resume`)).send({});
      assert.equal(signalled.status, 200, JSON.stringify(signalled.body));
      const done = await waitFor(env, org, id, finished);
      assert.deepEqual([done.status, done.outputs], ['completed', { v: 42 }]);
    } finally {
      second.shutdown();
      await secondRun;
    }

    const logs = await env.db.query<Array<{ message: string }>>(`SELECT message FROM execution_logs WHERE execution_id = $1 ORDER BY seq`, [
      id,
    ]);
    assert.deepEqual(
      logs.map((l) => l.message),
      ['before the wait', 'computing', 'after the wait: 42'],
    );
    const steps = await env.db.query<Array<{ step_id: string; n: number }>>(
      `SELECT step_id, count(*)::int AS n FROM execution_steps WHERE execution_id = $1 GROUP BY step_id ORDER BY step_id`,
      [id],
    );
    assert.deepEqual(steps, [
      { step_id: 'after', n: 1 },
      { step_id: 'before', n: 1 },
      { step_id: 'compute', n: 1 },
      { step_id: 'start', n: 1 },
      { step_id: 'wait', n: 1 },
    ]);
    // One row per written batch: the events of each row are numbered from its seq on.
    const events = await env.db.query<Array<{ seq: number }>>(
      `SELECT e.seq + n AS seq FROM execution_events e, generate_series(0, COALESCE(jsonb_array_length(e.more), 0)) AS n
       WHERE e.execution_id = $1 ORDER BY 1`,
      [id],
    );
    assert.deepEqual(
      events.map((e) => e.seq),
      events.map((_, i) => i),
      'events are dense, none repeated',
    );
  });
});
