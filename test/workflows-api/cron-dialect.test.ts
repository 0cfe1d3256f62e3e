/**
 * One cron dialect from validation to the Temporal schedule: for each form the
 * validator accepts (5 fields, 6 fields seconds first, macros, `@every`, `n#k`,
 * both day fields restricted, time zones), the schedule built from it runs at
 * the times the dialect reads (cron-parser's next runs) — compared with the
 * next action times Temporal itself reports for a paused schedule.
 */
import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { nextRuns, temporalScheduleSpec } from '../../api/workflows/cron-spec';
import { cronError } from '../../workflows/engine';
import { createTestTemporalEnv, testTemporalKind } from '../support/temporal';
import { definition } from '../support/definitions';
import { wfContext } from './support';

const CASES: Array<[string, string]> = [
  ['*/15 * * * *', 'UTC'],
  ['0 9 * * MON-FRI', 'America/New_York'],
  ['30 6 1,15 * *', 'Asia/Kolkata'],
  ['0 * * * * *', 'UTC'],
  ['*/20 * * * * *', 'UTC'],
  ['15 30 10 * * *', 'Asia/Tokyo'],
  ['0 0 12 * * ?', 'Europe/Berlin'],
  ['0 0 12 ? * SUN', 'UTC'],
  ['0 9 * * 1#2', 'UTC'],
  ['0 0 1,15 * MON', 'UTC'],
  ['0 0 0 13 * FRI', 'Australia/Sydney'],
  ['5/20 * * * *', 'UTC'],
  ['@hourly', 'UTC'],
  ['@daily', 'Asia/Kolkata'],
  ['@midnight', 'UTC'],
  ['@weekly', 'UTC'],
  ['@monthly', 'America/Los_Angeles'],
  ['@yearly', 'UTC'],
  ['@annually', 'Asia/Tokyo'],
  ['@every 90s', 'UTC'],
  ['@every 2h', 'UTC'],
];

const SHOWN = 5;

describe('workflows API: one cron dialect, as Temporal runs it', function () {
  this.timeout(120_000);
  let temporal: TestWorkflowEnvironment;

  before(async () => {
    temporal = await createTestTemporalEnv('local');
  });
  after(async () => {
    await temporal?.teardown();
  });

  it('runs each accepted form at the times the dialect reads (Temporal nextActionTimes)', async function () {
    // The comparison is with the real server's own reading (the stand-in reports no times for a paused schedule).
    if ((await testTemporalKind()) === 'stand-in') this.skip();
    const mismatches: string[] = [];
    for (const [index, [expression, timezone]] of CASES.entries()) {
      assert.equal(cronError(expression), undefined, expression);
      const scheduleId = `cron-dialect-${Date.now()}-${index}`;
      const from = new Date();
      await temporal.client.schedule.create({
        scheduleId,
        spec: temporalScheduleSpec(expression, timezone),
        action: { type: 'startWorkflow', workflowType: 'never-runs', taskQueue: 'cron-dialect', args: [] },
        state: { paused: true },
      });
      const described = await temporal.client.schedule.getHandle(scheduleId).describe();
      const after = new Date();
      await temporal.client.schedule.getHandle(scheduleId).delete();
      const theirs = described.info.nextActionTimes.slice(0, SHOWN).map((d) => d.toISOString());
      // Ours from before the schedule existed: a run between then and Temporal's reading may lead ours.
      const ours = nextRuns(expression, timezone, from, SHOWN + 1).map((d) => d.toISOString());
      const aligned = ours[0] === theirs[0] || new Date(ours[0]) > after ? ours : ours.slice(1);
      if (theirs.length !== SHOWN || aligned.slice(0, SHOWN).join() !== theirs.join())
        mismatches.push(`${expression} (${timezone}): Temporal ${theirs.join(', ')}; dialect ${ours.join(', ')}`);
    }
    assert.deepEqual(mismatches, []);
  });

  it('an activated six-field cron trigger runs on its seconds-first reading (every minute, not hourly)', async () => {
    const { env, org } = await wfContext({ temporal: temporal.client });
    const body = definition('Every minute', {
      steps: {
        tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '0 * * * * *' } },
        work: { type: 'module', pluginType: 'no-op' },
      },
      connections: [{ from: 'tick', to: 'work' }],
    });
    const published = await org.auth(env.t.request.put('/workflows/definitions/every-minute')).send(body).expect(201);
    // The publish answer shows the next runs as the dialect reads them.
    const shown = (published.body.triggers as Array<{ stepId: string; nextRuns?: string[] }>).find((t) => t.stepId === 'tick');
    const runs = shown?.nextRuns ?? [];
    assert.equal(runs.length, 3);
    assert.equal(Date.parse(runs[1]) - Date.parse(runs[0]), 60_000);
    const on = await org.auth(env.t.request.post('/workflows/definitions/every-minute/aliases/latest/activate'));
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const scheduleId = on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId as string;
    const described = await temporal.client.schedule.getHandle(scheduleId).describe();
    const [first, second] = described.info.nextActionTimes;
    assert.equal(second.getTime() - first.getTime(), 60_000);
    assert.equal(first.getUTCSeconds(), 0);
    await org.auth(env.t.request.post('/workflows/definitions/every-minute/aliases/latest/deactivate')).expect(200);
  });
});
