/**
 * Cron ticks start real executions: activating an alias creates the Temporal
 * Schedule, a triggered tick runs the execution workflow with the schedule's
 * own arguments, and the execution is recorded once, with the tick's
 * idempotency key.
 */
import assert from 'node:assert/strict';
import { finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: cron ticks', function () {
  this.timeout(60_000);
  const { x, c } = useExecEnv();

  it('runs a triggered tick of an activated cron trigger as a recorded execution', async () => {
    const workflowId = await publish(x, c, {
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
    const activated = await c.auth(x.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`));
    assert.equal(activated.status, 200, JSON.stringify(activated.body));
    const aliases = await c.auth(x.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const scheduleId = aliases.body.data[0].triggerStates.nightly.runtimeMetadata.scheduleId as string;
    assert.ok(scheduleId, JSON.stringify(aliases.body));

    await x.env.client.schedule.getHandle(scheduleId).trigger();

    let listed: { data: Array<{ id: string }> } = { data: [] };
    for (let i = 0; i < 200 && listed.data.length === 0; i++) {
      listed = (await c.auth(x.t.request.get(`/workflows/executions?workflowId=${workflowId}`))).body;
      if (listed.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(listed.data.length, 1, JSON.stringify(listed));
    const execution = await waitFor(x, c, listed.data[0].id, finished);
    assert.equal(execution.status, 'completed', JSON.stringify(execution));
    assert.equal((execution.trigger as { source: string }).source, 'cron');
    assert.match(String(execution.idempotencyKey), /^cron:nightly:\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/);
    const logs = await c.auth(x.t.request.get(`/workflows/executions/${listed.data[0].id}/logs`));
    assert.match(logs.body.data[0].message, /^tick at \d{4}-/);
  });
});
