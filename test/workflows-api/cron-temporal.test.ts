import assert from 'node:assert/strict';
import { ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { EXECUTION_WORKFLOW_TYPE } from '../../workflows/engine';
import { assertDialect } from '../support/dialects';
import { createTestTemporalEnv } from '../support/temporal';
import { definition } from '../support/definitions';
import { wfContext, type WfEnv, type WfOrg } from './support';

/** tick (cron) ──▶ work, against a real Temporal frontend (configured server, CLI dev server or the stand-in). */
describe('workflows API: cron triggers on Temporal schedules', function () {
  this.timeout(60_000);
  let temporal: TestWorkflowEnvironment;
  let env: WfEnv;
  let org: WfOrg;

  before(async () => {
    temporal = await createTestTemporalEnv('local');
  });
  after(async () => {
    await temporal?.teardown();
  });
  beforeEach(async () => {
    ({ env, org } = await wfContext({ temporal: temporal.client }));
  });

  it('creates a schedule on activation (timezone, overlap skip, execution workflow type) and deletes it on deactivation', async () => {
    const body = definition('Cron', {
      steps: {
        tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '*/10 * * * *', timezone: 'UTC' } },
        work: { type: 'module', pluginType: 'no-op' },
      },
      connections: [{ from: 'tick', to: 'work' }],
    });
    await org.auth(env.t.request.put('/workflows/definitions/cron-flow')).send(body).expect(201);
    await org.auth(env.t.request.put('/workflows/definitions/cron-flow/aliases/prod')).send({ revision: 1 }).expect(201);
    const on = await org.auth(env.t.request.post('/workflows/definitions/cron-flow/aliases/prod/activate'));
    assert.equal(on.status, 200, JSON.stringify(on.body));
    const scheduleId: string = on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId;
    const described = await temporal.client.schedule.getHandle(scheduleId).describe();
    assert.equal(described.action.type, 'startWorkflow');
    assert.equal(described.action.type === 'startWorkflow' ? described.action.workflowType : '', EXECUTION_WORKFLOW_TYPE);
    assert.equal(described.spec.timezone ?? 'UTC', 'UTC');
    assert.equal(described.policies.overlap, ScheduleOverlapPolicy.SKIP);

    const off = await org.auth(env.t.request.post('/workflows/definitions/cron-flow/aliases/prod/deactivate'));
    assert.deepEqual(off.body.deactivatedTriggers, ['tick']);
    await assert.rejects(temporal.client.schedule.getHandle(scheduleId).describe(), ScheduleNotFoundError);
  });
  it('follows an active latest to a new revision: the schedule runs the new revision, the old one is deleted', async () => {
    const body = (message: string) =>
      definition('Following', {
        steps: {
          tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } },
          work: { type: 'module', pluginType: 'log', config: { message } },
        },
        connections: [{ from: 'tick', to: 'work' }],
      });
    await org.auth(env.t.request.put('/workflows/definitions/following')).send(body('one')).expect(201);
    const on = await org.auth(env.t.request.post('/workflows/definitions/following/aliases/latest/activate')).expect(200);
    const before = on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId as string;
    const published = await org.auth(env.t.request.put('/workflows/definitions/following')).send(body('two')).expect(200);
    assert.equal(published.body.mode, 'new-revision');
    const after = published.body.latestAlias.triggerStates.tick.runtimeMetadata.scheduleId as string;
    assert.notEqual(after, before);
    const described = await temporal.client.schedule.getHandle(after).describe();
    const args = described.action.type === 'startWorkflow' ? (described.action.args as Array<{ revision: number; alias: string }>) : [];
    assert.deepEqual([args[0]?.alias, args[0]?.revision], ['latest', 2]);
    await assert.rejects(temporal.client.schedule.getHandle(before).describe(), ScheduleNotFoundError);
    await org.auth(env.t.request.post('/workflows/definitions/following/aliases/latest/deactivate')).expect(200);
  });
  it('sets the schedule catch-up window from catchUpMissed (true: a year, false: the 10 s minimum)', async () => {
    for (const [catchUpMissed, window] of [
      [true, 365 * 86_400_000],
      [false, 10_000],
    ] as const) {
      const key = `catch-up-${String(catchUpMissed)}`;
      const body = definition('Cron', {
        steps: {
          tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '*/10 * * * *', catchUpMissed } },
          work: { type: 'module', pluginType: 'no-op' },
        },
        connections: [{ from: 'tick', to: 'work' }],
      });
      await org
        .auth(env.t.request.put(`/workflows/definitions/${key}`))
        .send(body)
        .expect(201);
      const on = await org.auth(env.t.request.post(`/workflows/definitions/${key}/aliases/latest/activate`));
      assert.equal(on.status, 200, JSON.stringify(on.body));
      const described = await temporal.client.schedule
        .getHandle(on.body.alias.triggerStates.tick.runtimeMetadata.scheduleId as string)
        .describe();
      assert.equal(Number(described.policies.catchupWindow), window);
    }
  });
  it('lists when a live schedule runs next (includeNextRun), as Temporal says, in its time zone', async () => {
    const body = definition('Yearly', {
      steps: {
        tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '0 0 1 1 *', timezone: 'Asia/Tokyo' } },
        hook: { type: 'trigger', pluginType: 'webhook', config: {} },
        work: { type: 'module', pluginType: 'no-op' },
      },
      connections: [
        { from: 'tick', to: 'work' },
        { from: 'hook', to: 'work' },
      ],
    });
    await org.auth(env.t.request.put('/workflows/definitions/yearly')).send(body).expect(201);
    const on = await org.auth(env.t.request.post('/workflows/definitions/yearly/aliases/latest/activate'));
    assert.equal(on.status, 200, JSON.stringify(on.body));
    // Midnight of the next January 1st in Tokyo (UTC+9, no daylight saving): 15:00 UTC on December 31st.
    const now = new Date();
    let expected = Date.UTC(now.getUTCFullYear(), 11, 31, 15);
    if (expected <= now.getTime()) expected = Date.UTC(now.getUTCFullYear() + 1, 11, 31, 15);

    const listed = await org.auth(env.t.request.get('/workflows/triggers?workflowId=yearly&includeNextRun=true')).expect(200);
    const byId = Object.fromEntries((listed.body.data as Array<Record<string, unknown>>).map((row) => [row.triggerId, row]));
    assert.equal(byId.tick.nextRunAt, new Date(expected).toISOString());
    assert.equal(byId.hook.nextRunAt, undefined);
    assert.match(String((byId.hook.runtimeMetadata as Record<string, unknown>).webhookUrl), /\/workflows\/webhooks\//);
    // Without asking, no Temporal read and no next run.
    const plain = await org.auth(env.t.request.get('/workflows/triggers?workflowId=yearly')).expect(200);
    // A flag that is not a boolean is refused (problem details), not read as false.
    const bad = await org.auth(env.t.request.get('/workflows/triggers?workflowId=yearly&includeNextRun=maybe'));
    assertDialect('problem', bad, 400);
    assert.ok((plain.body.data as Array<Record<string, unknown>>).every((row) => row.nextRunAt === undefined));
    // A deactivated schedule has none.
    await org.auth(env.t.request.post('/workflows/definitions/yearly/aliases/latest/deactivate')).expect(200);
    const off = await org.auth(env.t.request.get('/workflows/triggers?workflowId=yearly&includeNextRun=true')).expect(200);
    assert.ok((off.body.data as Array<Record<string, unknown>>).every((row) => row.nextRunAt === undefined));
  });
});
