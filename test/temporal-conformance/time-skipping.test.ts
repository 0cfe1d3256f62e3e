import assert from 'node:assert/strict';
import Long from 'long';
import { createWorker, eventually, historiesOf, newProbe, replayFailures, uniqueQueue, useTemporalEnv } from './harness';
import * as wf from './workflows';

describe('temporal conformance: time skipping (createTimeSkipping)', function () {
  this.timeout(60_000);
  const queue = uniqueQueue('skip');
  const probe = newProbe();

  const env = useTemporalEnv('time-skipping', { worker: { queue, probe } });

  it('finishes a workflow that sleeps for days in well under a second', async () => {
    const before = await env.currentTimeMs();
    const started = Date.now();
    assert.equal(await env.client.workflow.execute(wf.daysLong, { taskQueue: queue, workflowId: `days-${queue}` }), 'echo:after-days');
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    assert.ok((await env.currentTimeMs()) - before >= 5 * 86_400_000);
  });

  it('skips time with env.sleep() while the workflow runs', async () => {
    const handle = await env.client.workflow.start(wf.sleeper, { taskQueue: queue, workflowId: `sleep-${queue}`, args: [3_600_000] });
    const started = Date.now();
    await env.sleep('2 hours');
    assert.ok(Date.now() - started < 1000);
    const description = await handle.describe();
    assert.equal(description.status.name, 'COMPLETED');
    assert.equal(await handle.result(), 'woke');
  });

  it('does not skip time while time skipping is locked', async () => {
    const handle = await env.client.workflow.start(wf.sleeper, { taskQueue: queue, workflowId: `locked-${queue}`, args: [60_000] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await handle.describe()).status.name, 'RUNNING');
    assert.equal(await handle.result(), 'woke');
  });

  it('retries activities without waiting out the backoff', async () => {
    const started = Date.now();
    assert.equal(
      await env.client.workflow.execute(wf.retryingActivity, { taskQueue: queue, workflowId: `retry-${queue}`, args: ['ts-retry', 2] }),
      'ok after 3',
    );
    assert.ok(Date.now() - started < 2000);
  });

  it('runs a cron workflow on its schedule', async () => {
    const handle = await env.client.workflow.start(wf.cronWorkflow, {
      taskQueue: queue,
      workflowId: `cron-${queue}`,
      cronSchedule: '0 * * * *',
    });
    await env.sleep('3 hours');
    const count = await env.client.workflow.count(`WorkflowId = '${handle.workflowId}' AND ExecutionStatus = 'Completed'`);
    assert.ok(count.count >= 3, `${count.count} cron runs completed`);
    await handle.terminate();
  });

  it('serves the TestService: current time, sleep and sleep-until move the clock', async () => {
    const testService = env.connection.testService;
    assert.ok(testService);
    const now = await env.currentTimeMs();
    const realStart = Date.now();
    await testService.unlockTimeSkipping({});
    try {
      await testService.sleep({ duration: { seconds: Long.fromNumber(3600) } });
      assert.ok((await env.currentTimeMs()) - now >= 3_600_000);
      const target = now + 2 * 86_400_000;
      await testService.sleepUntil({ timestamp: { seconds: Long.fromNumber(Math.floor(target / 1000)) } });
      assert.ok((await env.currentTimeMs()) >= Math.floor(target / 1000) * 1000);
    } finally {
      await testService.lockTimeSkipping({});
    }
    assert.ok(Date.now() - realStart < 1000);
    await assert.rejects(
      (async () => {
        await testService.unlockTimeSkipping({});
        try {
          await testService.unlockTimeSkipping({});
        } finally {
          await testService.lockTimeSkipping({});
        }
      })(),
    );
  });

  it('lets an activity sleep in test time with env.sleep() (the documented race example)', async () => {
    const raceQueue = `${queue}-race`;
    const raceWorker = await createWorker(env, raceQueue, probe, {
      activities: {
        longRunning: async () => {
          await env.sleep(1_000_000);
          return 'done';
        },
      },
    });
    const started = Date.now();
    const result = await raceWorker.runUntil(
      env.client.workflow.execute(wf.raceActivityAndTimer, { taskQueue: raceQueue, workflowId: `race-${queue}` }),
    );
    assert.equal(result, 'timer');
    assert.ok(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
  });

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(env.client, [queue, `${queue}-race`]);
      assert.ok(found.length >= 9, `${found.length} found`);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
