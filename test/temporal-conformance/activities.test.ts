import assert from 'node:assert/strict';
import { ActivityCancelledError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { eventually, historiesOf, newProbe, replayFailures, uniqueQueue, useTemporalEnv } from './harness';
import * as wf from './workflows';

describe('temporal conformance: activities', function () {
  this.timeout(60_000);
  const queue = uniqueQueue('acts');
  const probe = newProbe();
  let n = 0;
  const id = (name: string): string => `${name}-${queue}-${++n}`;

  const env = useTemporalEnv('local', { worker: { queue, probe } });

  const run = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, args: A): Promise<R> =>
    env.client.workflow.execute(fn, { taskQueue: queue, workflowId: id(fn.name), args });

  it('completes activities in sequence and in parallel', async () => {
    assert.deepEqual(await run(wf.activitySequence, [['a', 'b', 'c']]), ['echo:a', 'echo:b', 'echo:c']);
    assert.deepEqual(await run(wf.parallelActivities, [5]), ['echo:0', 'echo:1', 'echo:2', 'echo:3', 'echo:4']);
  });

  it('runs local activities (marker events)', async () => {
    assert.equal(await run(wf.localActivity, ['local']), 'echo:local');
  });

  it('retries a failing activity on the server with backoff', async () => {
    assert.equal(await run(wf.retryingActivity, ['retry-3', 2]), 'ok after 3');
    assert.equal(probe.attempts['retry-3'], 3);
  });

  it('does not retry non-retryable failures and honours nonRetryableErrorTypes and maximumAttempts', async () => {
    assert.equal(await run(wf.failingActivity, ['nr', 'nonRetryable']), 'Permanent:permanent problem:NON_RETRYABLE_FAILURE');
    assert.equal(probe.attempts['nr'], 1);
    assert.equal(await run(wf.failingActivity, ['nrt', 'nonRetryableType']), 'Fatal:typed failure:NON_RETRYABLE_FAILURE');
    assert.equal(probe.attempts['nrt'], 1);
    assert.equal(await run(wf.failingActivity, ['max', 'maxAttempts']), 'Flaky:attempt 3 fails:MAXIMUM_ATTEMPTS_REACHED');
    assert.equal(probe.attempts['max'], 3);
  });

  it('times out start-to-close (retried up to maximumAttempts)', async () => {
    assert.equal(await run(wf.activityTimeout, ['startToClose', 's2c']), 'START_TO_CLOSE:MAXIMUM_ATTEMPTS_REACHED');
    assert.equal(probe.attempts['s2c'], 2);
  });

  it('times out schedule-to-close across retries', async () => {
    const [timeoutType, retryState] = (await run(wf.activityTimeout, ['scheduleToClose', 'sched2close'])).split(':');
    assert.equal(timeoutType, 'SCHEDULE_TO_CLOSE');
    // The real server answers TIMEOUT when a failed attempt's retry would pass the deadline, and
    // NON_RETRYABLE_FAILURE when the schedule-to-close timer fires during an attempt (seen on a loaded machine).
    assert.ok(retryState === 'TIMEOUT' || retryState === 'NON_RETRYABLE_FAILURE', retryState);
    assert.ok((probe.attempts['sched2close'] ?? 0) >= 2);
  });

  it('times out heartbeats', async () => {
    assert.equal(await run(wf.activityTimeout, ['heartbeat', 'hb']), 'HEARTBEAT:MAXIMUM_ATTEMPTS_REACHED');
  });

  it('times out schedule-to-start when nobody polls', async () => {
    assert.equal(await run(wf.activityTimeout, ['scheduleToStart', 's2s']), 'SCHEDULE_TO_START:NON_RETRYABLE_FAILURE');
  });

  it('keeps heartbeat details across attempts', async () => {
    assert.equal(await run(wf.heartbeatingActivity, ['beats']), 3);
    assert.equal(probe.attempts['beats'], 2);
    assert.deepEqual(probe.heartbeatsSeen, [undefined, 3]);
  });

  it('delivers activity cancellation through heartbeats', async () => {
    const handle = await env.client.workflow.start(wf.cancelActivity, {
      taskQueue: queue,
      workflowId: id('cancelActivity'),
      args: ['cancel-me'],
    });
    while (probe.attempts['cancel-me'] === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    await handle.signal(wf.doneSignal);
    assert.equal(await handle.result(), 'activity cancelled');
    assert.deepEqual(probe.cancelled, ['cancel-me']);
  });

  it('completes an activity asynchronously by id', async () => {
    const handle = await env.client.workflow.start(wf.asyncActivity, { taskQueue: queue, workflowId: id('async'), args: ['async-act'] });
    while (probe.attempts['async-act'] === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    await env.client.activity.heartbeat({ workflowId: handle.workflowId, activityId: 'async-act' }, 'beat');
    await env.client.activity.complete({ workflowId: handle.workflowId, activityId: 'async-act' }, 'done from outside');
    assert.equal(await handle.result(), 'done from outside');
  });

  it('delivers cancellation to an async activity heartbeating by id, which reports it by id', async () => {
    const handle = await env.client.workflow.start(wf.cancelAsyncActivity, {
      taskQueue: queue,
      workflowId: id('asynccancel'),
      args: ['async-cancel'],
    });
    while (probe.attempts['async-cancel'] === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    await handle.signal(wf.doneSignal);
    const ref = { workflowId: handle.workflowId, activityId: 'async-cancel' };
    let cancelled = false;
    for (let i = 0; i < 100 && !cancelled; i++) {
      try {
        await env.client.activity.heartbeat(ref, i);
        await new Promise((resolve) => setTimeout(resolve, 20));
      } catch (error) {
        assert.ok(error instanceof ActivityCancelledError, String(error));
        cancelled = true;
      }
    }
    assert.ok(cancelled);
    await env.client.activity.reportCancellation(ref, 'gave up');
    assert.equal(await handle.result(), 'cancelled');
    const history = await handle.fetchHistory();
    const canceled = history.events?.find((event) => event.activityTaskCanceledEventAttributes);
    assert.ok(canceled, 'ActivityTaskCanceled is in the history');
  });

  it('fails an async activity by id', async () => {
    const handle = await env.client.workflow.start(wf.asyncActivity, {
      taskQueue: queue,
      workflowId: id('asyncfail'),
      args: ['async-fail'],
    });
    while (probe.attempts['async-fail'] === undefined) await new Promise((resolve) => setTimeout(resolve, 20));
    await env.client.activity.fail(
      { workflowId: handle.workflowId, activityId: 'async-fail' },
      ApplicationFailure.nonRetryable('failed from outside'),
    );
    await assert.rejects(handle.result(), (error: unknown) => {
      assert.ok(error instanceof WorkflowFailedError);
      const cause: unknown = error.cause?.cause;
      assert.match(cause instanceof Error ? cause.message : '', /failed from outside/);
      return true;
    });
  });

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(env.client, [queue]);
      assert.ok(found.length >= 12, `only ${found.length} found`);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
