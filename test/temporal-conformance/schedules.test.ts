import assert from 'node:assert/strict';
import { ScheduleOverlapPolicy, type ScheduleDescription } from '@temporalio/client';
import { eventually, historiesOf, newProbe, replayFailures, uniqueQueue, useTemporalEnv } from './harness';

interface RunInfo {
  start: Date;
  close?: Date;
  status: string;
}

/** Whether any two runs were open at the same time. */
function overlapping(runs: RunInfo[]): boolean {
  const sorted = [...runs].sort((a, b) => a.start.getTime() - b.start.getTime());
  for (let i = 1; i < sorted.length; i++) {
    const previousClose = sorted[i - 1].close?.getTime() ?? Infinity;
    if (previousClose > sorted[i].start.getTime()) return true;
  }
  return false;
}

const waitFor = async (check: () => Promise<boolean>, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('temporal conformance: schedules', function () {
  this.timeout(60_000);

  describe('with real time', () => {
    const queue = uniqueQueue('sched');

    const env = useTemporalEnv('local', { worker: { queue, probe: newProbe() } });

    it('fires an interval schedule, skips overlapping runs, pauses, triggers, updates, lists and deletes', async () => {
      const scheduleId = `interval-${queue}`;
      const handle = await env.client.schedule.create({
        scheduleId,
        spec: { intervals: [{ every: '1s' }] },
        action: { type: 'startWorkflow', workflowType: 'collector', taskQueue: queue, workflowId: `${scheduleId}-wf` },
        policies: { overlap: ScheduleOverlapPolicy.SKIP },
      });
      await waitFor(async () => {
        const d = await handle.describe();
        return d.info.numActionsTaken >= 1 && d.info.numActionsSkippedOverlap >= 1;
      }, 10_000);
      const described = await handle.describe();
      assert.equal(described.info.runningActions.length, 1);
      assert.equal(described.spec.intervals?.[0]?.every, 1000);
      assert.equal(described.info.nextActionTimes.length > 0, true);
      const started = described.info.runningActions[0].workflow;
      assert.match(started.workflowId, new RegExp(`^${scheduleId}-wf-\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ$`));

      await handle.pause('hold on');
      const paused = await handle.describe();
      assert.equal(paused.state.paused, true);
      assert.equal(paused.state.note, 'hold on');
      await handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL);
      await waitFor(async () => (await handle.describe()).info.numActionsTaken >= 2, 5000);
      await handle.unpause();

      await handle.update((previous) => ({ ...previous, spec: { cronExpressions: ['0 0 1 1 *'] } }));
      const updated = await handle.describe();
      assert.equal(updated.spec.calendars?.[0]?.month?.[0]?.start, 'JANUARY');

      const listed: string[] = [];
      for await (const schedule of env.client.schedule.list()) listed.push(schedule.scheduleId);
      assert.ok(listed.includes(scheduleId));

      await handle.delete();
      await assert.rejects(handle.describe(), /not found/i);
      // end the workflows the schedule started
      for await (const info of env.client.workflow.list({ query: `TaskQueue = '${queue}' AND ExecutionStatus = 'Running'` })) {
        await env.client.workflow.getHandle(info.workflowId).terminate();
      }
    });

    it('replays every history cleanly', async () => {
      const histories = await eventually(async () => {
        const found = await historiesOf(env.client, [queue]);
        assert.ok(found.length >= 2);
        return found;
      });
      assert.deepEqual(await replayFailures(histories), []);
    });
  });

  describe('with time skipping', () => {
    const queue = uniqueQueue('cron');

    const env = useTemporalEnv('time-skipping', { worker: { queue, probe: newProbe() } });

    it('starts a workflow for every hourly cron time', async () => {
      const handle = await env.client.schedule.create({
        scheduleId: `cron-${queue}`,
        spec: { cronExpressions: ['0 * * * *'] },
        action: { type: 'startWorkflow', workflowType: 'oneActivity', args: ['cron'], taskQueue: queue },
      });
      await env.sleep('3 hours');
      const described = await handle.describe();
      assert.ok(described.info.numActionsTaken >= 3, `took ${described.info.numActionsTaken} actions`);
      for (const action of described.info.recentActions) {
        assert.equal(action.scheduledAt.getUTCMinutes(), 0);
        assert.equal(action.scheduledAt.getUTCSeconds(), 0);
      }
      await waitFor(
        async () => (await env.client.workflow.count(`TaskQueue = '${queue}' AND ExecutionStatus = 'Completed'`)).count >= 3,
        5000,
      );
      await handle.delete();
    });

    it('backfills past nominal times', async () => {
      const handle = await env.client.schedule.create({
        scheduleId: `backfill-${queue}`,
        spec: { cronExpressions: ['0 * * * *'] },
        action: { type: 'startWorkflow', workflowType: 'oneActivity', args: ['backfill'], taskQueue: queue },
        state: { paused: true },
      });
      const now = await env.currentTimeMs();
      await handle.backfill({ start: new Date(now - 3 * 3_600_000), end: new Date(now), overlap: ScheduleOverlapPolicy.ALLOW_ALL });
      const described = await handle.describe();
      assert.equal(described.info.numActionsTaken, 3);
      for (const action of described.info.recentActions) assert.ok(action.scheduledAt.getTime() <= now);
      await handle.delete();
    });

    it('pauses on a failed run with pauseOnFailure and stops after its limited actions', async () => {
      const failing = await env.client.schedule.create({
        scheduleId: `pause-on-failure-${queue}`,
        spec: { intervals: [{ every: '1 hour' }] },
        action: { type: 'startWorkflow', workflowType: 'failWorkflow', taskQueue: queue },
        policies: { pauseOnFailure: true },
      });
      await env.sleep('150 minutes');
      const paused = await failing.describe();
      assert.equal(paused.state.paused, true);
      assert.equal(paused.info.numActionsTaken, 1);
      await failing.delete();

      const limited = await env.client.schedule.create({
        scheduleId: `limited-${queue}`,
        spec: { intervals: [{ every: '1 hour' }] },
        action: { type: 'startWorkflow', workflowType: 'oneActivity', args: ['limited'], taskQueue: queue },
        state: { remainingActions: 2 },
      });
      await env.sleep('5 hours');
      const done = await limited.describe();
      assert.equal(done.info.numActionsTaken, 2);
      assert.equal(done.state.remainingActions, 0);
      await limited.delete();
    });

    const overlapCases: Array<[ScheduleOverlapPolicy, (runs: RunInfo[], info: ScheduleDescription['info']) => void]> = [
      [
        ScheduleOverlapPolicy.SKIP,
        (runs, info) => {
          assert.equal(overlapping(runs), false);
          assert.ok(info.numActionsSkippedOverlap >= 1);
        },
      ],
      [
        ScheduleOverlapPolicy.BUFFER_ONE,
        (runs) => {
          assert.equal(overlapping(runs), false);
          assert.ok(
            runs.some((run) => run.start.getUTCMinutes() !== 0),
            'a buffered start happens when the previous run closes',
          );
        },
      ],
      [
        ScheduleOverlapPolicy.BUFFER_ALL,
        (runs) => {
          assert.equal(overlapping(runs), false);
          assert.ok(runs.length >= 2);
        },
      ],
      [
        ScheduleOverlapPolicy.ALLOW_ALL,
        (runs) => {
          assert.equal(overlapping(runs), true);
          assert.ok(runs.length >= 3);
        },
      ],
      [
        ScheduleOverlapPolicy.TERMINATE_OTHER,
        (runs) => {
          assert.ok(runs.some((run) => run.status === 'TERMINATED'));
          assert.equal(overlapping(runs), false);
        },
      ],
      [
        ScheduleOverlapPolicy.CANCEL_OTHER,
        (runs) => {
          assert.ok(runs.some((run) => run.status === 'CANCELLED'));
        },
      ],
    ];
    for (const [overlap, check] of overlapCases) {
      it(`honours the ${overlap} overlap policy`, async () => {
        const scheduleId = `overlap-${overlap}-${queue}`;
        const handle = await env.client.schedule.create({
          scheduleId,
          spec: { intervals: [{ every: '1 hour' }] },
          action: { type: 'startWorkflow', workflowType: 'sleeper', args: [100 * 60_000], taskQueue: queue },
          policies: { overlap },
        });
        await env.sleep('270 minutes');
        await handle.pause();
        const runs: RunInfo[] = [];
        for await (const info of env.client.workflow.list({ query: `WorkflowId STARTS_WITH '${scheduleId}'` })) {
          runs.push({ start: info.startTime, close: info.closeTime, status: info.status.name });
        }
        check(runs, (await handle.describe()).info);
        await handle.delete();
        for await (const info of env.client.workflow.list({
          query: `WorkflowId STARTS_WITH '${scheduleId}' AND ExecutionStatus = 'Running'`,
        })) {
          await env.client.workflow.getHandle(info.workflowId, info.runId).terminate();
        }
      });
    }

    it('replays every history cleanly', async () => {
      const histories = await eventually(async () => {
        const found = await historiesOf(env.client, [queue]);
        assert.ok(found.length >= 3);
        return found;
      });
      assert.deepEqual(await replayFailures(histories), []);
    });
  });
});
