/**
 * Cron ticks start real executions: activating an alias creates the Temporal
 * Schedule, a triggered tick runs the execution workflow with the schedule's
 * own arguments, and the execution is recorded once, with the tick's
 * idempotency key.
 */
import assert from 'node:assert/strict';
import { EXECUTION_WORKFLOW_TYPE } from '../../workflows/engine';
import { prepareScheduledRun, type PrepareDeps } from '../../executions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: cron ticks', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();

  it('runs a triggered tick of an activated cron trigger as a recorded execution', async () => {
    const workflowId = await publish(env, org, {
      name: 'Nightly',
      key: 'nightly',
      steps: [
        { id: 'nightly', type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          config: { message: 'tick at ${{ steps.nightly.outputs.firedAt }}' },
          dependsOn: ['nightly'],
        },
      ],
    });
    const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const scheduleId = aliases.body.data[0].triggerStates.nightly.runtimeMetadata.scheduleId as string;
    assert.ok(scheduleId, JSON.stringify(aliases.body));

    await env.temporal.client.schedule.getHandle(scheduleId).trigger();

    let listed: { data: Array<{ id: string }> } = { data: [] };
    for (let i = 0; i < 200 && listed.data.length === 0; i++) {
      listed = (await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`))).body;
      if (listed.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(listed.data.length, 1, JSON.stringify(listed));
    const execution = await waitFor(env, org, listed.data[0].id, finished);
    assert.equal(execution.status, 'completed', JSON.stringify(execution));
    assert.equal((execution.trigger as { source: string }).source, 'cron');
    assert.match(String(execution.idempotencyKey), /^cron:nightly:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${listed.data[0].id}/logs`));
    assert.match(logs.body.data[0].message, /^tick at \d{4}-/);
  });

  it('a tick (scheduled or run by hand) gives the run workflow.inputs.firedAt and workflow.inputs.schedule, as the compatible engine does', async () => {
    //   hourly(cron) ─▶ note(log)
    const workflowId = await publish(env, org, {
      name: 'Tick inputs',
      key: 'tick-inputs',
      steps: [
        { id: 'hourly', type: 'trigger', pluginType: 'cron', config: { schedule: '0 * * * *' } },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          config: { message: 'tick ${{ workflow.inputs.firedAt }} of ${{ workflow.inputs.schedule }}' },
          dependsOn: ['hourly'],
        },
      ],
      outputs: {
        firedAt: '${{ workflow.inputs.firedAt }}',
        schedule: '${{ workflow.inputs.schedule }}',
        payload: '${{ trigger.payload }}',
      },
    });
    const activated = await org.auth(env.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const aliases = await org.auth(env.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    await env.temporal.client.schedule.getHandle(aliases.body.data[0].triggerStates.hourly.runtimeMetadata.scheduleId as string).trigger();
    let listed: { data: Array<{ id: string }> } = { data: [] };
    for (let i = 0; i < 200 && listed.data.length === 0; i++) {
      listed = (await org.auth(env.t.request.get(`/workflows/executions?workflowId=${workflowId}`))).body;
      if (listed.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(listed.data.length, 1, JSON.stringify(listed));
    const scheduled = await waitFor(env, org, listed.data[0].id, finished);
    const byHand = await waitFor(env, org, await execute(env, org, 'tick-inputs'), finished);
    for (const run of [scheduled, byHand]) {
      assert.equal(run.status, 'completed', JSON.stringify(run));
      const outputs = run.outputs as { firedAt: string; schedule: string; payload: unknown };
      assert.match(outputs.firedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
      assert.equal(outputs.schedule, '0 * * * *');
      assert.deepEqual(run.inputs, { firedAt: outputs.firedAt, schedule: '0 * * * *' });
      assert.deepEqual(outputs.payload, { firedAt: outputs.firedAt, schedule: '0 * * * *' });
      const logs = await org.auth(env.t.request.get(`/workflows/executions/${String(run.id)}/logs`)).expect(200);
      assert.equal(logs.body.data[0].message, `tick ${outputs.firedAt} of 0 * * * *`);
    }
    assert.equal((scheduled.trigger as { source: string }).source, 'cron');
  });

  it('two active aliases with the same cron trigger each run their revision on a tick, with no failed workflow', async () => {
    const nightly = (message: string) => ({
      name: 'Twice',
      key: 'twice',
      steps: [
        { id: 'nightly', type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } },
        { id: 'note', type: 'module', pluginType: 'log', config: { message }, dependsOn: ['nightly'] },
      ],
    });
    await org.auth(env.t.request.put('/workflows/definitions/twice')).send(nightly('revision one')).expect(201);
    await org.auth(env.t.request.put('/workflows/definitions/twice')).send(nightly('revision two')).expect(200);
    await org.auth(env.t.request.put('/workflows/definitions/twice/aliases/prod')).send({ revision: 1 }).expect(201);
    const scheduleIds: string[] = [];
    for (const alias of ['latest', 'prod']) {
      const on = await org.auth(env.t.request.post(`/workflows/definitions/twice/aliases/${alias}/activate`));
      assert.equal(on.status, 200, JSON.stringify(on.body));
      scheduleIds.push(on.body.alias.triggerStates.nightly.runtimeMetadata.scheduleId as string);
    }
    // One tick on both schedules at once (the same second, as a real tick).
    await Promise.all(scheduleIds.map((id) => env.temporal.client.schedule.getHandle(id).trigger()));

    type Listed = { id: string; alias: string; revision: number };
    let listed: Listed[] = [];
    for (let i = 0; i < 200 && listed.length < 2; i++) {
      listed = (await org.auth(env.t.request.get('/workflows/executions?workflowId=twice'))).body.data as Listed[];
      if (listed.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(listed.map((e) => `${e.alias}@${e.revision}`).sort(), ['latest@2', 'prod@1']);
    for (const { id, alias } of listed) {
      const execution = await waitFor(env, org, id, finished);
      assert.equal(execution.status, 'completed', JSON.stringify(execution));
      const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`));
      assert.equal(logs.body.data[0].message, alias === 'latest' ? 'revision two' : 'revision one');
    }
    // No run of either schedule failed (a tick taken for the other alias's duplicate would).
    const failed: string[] = [];
    for await (const run of env.temporal.client.workflow.list({
      query: `WorkflowType = '${EXECUTION_WORKFLOW_TYPE}' AND ExecutionStatus = 'Failed'`,
    }))
      if (scheduleIds.some((id) => run.workflowId.startsWith(`cron-${id}`))) failed.push(run.workflowId);
    assert.deepEqual(failed, []);
  });

  it('records one run per tick of each alias: the same tick for two aliases is not a duplicate', async () => {
    await org
      .auth(env.t.request.put('/workflows/definitions/tick-keys'))
      .send({
        name: 'Keys',
        key: 'tick-keys',
        steps: [
          { id: 'nightly', type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } },
          { id: 'n', type: 'module', pluginType: 'no-op', config: {}, dependsOn: ['nightly'] },
        ],
      })
      .expect(201);
    const workflowId = (await org.auth(env.t.request.get('/workflows/definitions/tick-keys'))).body.id as string;
    const deps = { dataSource: env.db, temporalNamespace: 'default', limits: env.limits } as unknown as PrepareDeps;
    const firedAt = Date.UTC(2030, 0, 1, 3);
    const keys: string[] = [];
    const ids: string[] = [];
    for (const alias of ['latest', 'prod']) {
      const executionId = `cron-tick-keys-${alias}-${Date.now()}`;
      ids.push(executionId);
      await prepareScheduledRun(deps, {
        start: {
          organizationId: org.id,
          workflowId,
          alias,
          revision: 1,
          trigger: { id: 'nightly', pluginType: 'cron', schedule: '0 3 * * *' },
        },
        executionId,
        runId: 'run',
        firedAt,
      });
      const [row] = await env.db.query<Array<{ key: string }>>(`SELECT idempotency_key AS key FROM executions WHERE id = $1`, [
        executionId,
      ]);
      keys.push(row.key);
    }
    // Recorded without a Temporal run: removed, so the environment's history replay at the end does not look for one.
    await env.db.query(`DELETE FROM executions WHERE id = ANY($1::text[])`, [ids]);
    // `latest` keeps the documented key; another alias appends its name.
    assert.deepEqual(keys, ['cron:nightly:2030-01-01T03:00:00.000Z', 'cron:nightly:2030-01-01T03:00:00.000Z@prod']);
  });
});
