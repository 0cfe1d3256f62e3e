/**
 * Runs by hand of workflows without a manual trigger (POST …/execute, which the kit's `execute` and the console's run
 * button call): the only trigger fires as a "run now" and the run ends; with several, the caller names one or the
 * start is refused before anything is recorded. Signal-with-start follows the same rule.
 *
 *   tick (cron) ──▶ note (log)        hook (webhook) ──▶ note (log)        tick (cron) ─┬▶ note (log, any)
 *                                                                          hook (webhook)┘
 */
import assert from 'node:assert/strict';
import { assertDialect } from '../support/dialects';
import { countExecutions, execute, finished, publish, useExecEnv, waitFor } from './support';

const note = { type: 'module', pluginType: 'log', config: { message: 'ran by ${{ trigger.source }}' } };
const tick = { type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } };
const hook = { type: 'trigger', pluginType: 'webhook', config: { method: 'POST' } };

describe('executions API: runs by hand of cron and webhook workflows', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });

  it('runs a cron-only workflow now: its trigger gets a tick payload and the run completes', async () => {
    await publish(env, org, {
      name: 'Nightly',
      key: 'nightly',
      steps: { tick, note },
      connections: [{ from: 'tick', to: 'note' }],
      outputs: { schedule: '${{ trigger.payload.schedule }}', firedAt: '${{ trigger.payload.firedAt }}' },
    });
    const id = await execute(env, org, 'nightly');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const outputs = done.outputs as { schedule: string; firedAt: string };
    assert.equal(outputs.schedule, '0 3 * * *');
    assert.match(outputs.firedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    assert.deepEqual(
      { stepId: (done.trigger as { stepId: string }).stepId, source: (done.trigger as { source: string }).source },
      { stepId: 'tick', source: 'manual' },
    );
    const steps = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps`)).expect(200);
    assert.deepEqual((steps.body.data as Array<{ stepId: string; status: string }>).map((s) => [s.stepId, s.status]).sort(), [
      ['note', 'completed'],
      ['tick', 'completed'],
    ]);
  });

  it('runs a webhook-only workflow now: its trigger gets a request with the inputs as body', async () => {
    await publish(env, org, {
      name: 'Hooked',
      key: 'hooked',
      steps: { hook, note },
      connections: [{ from: 'hook', to: 'note' }],
      outputs: { order: '${{ trigger.payload.body.order }}', method: '${{ trigger.payload.method }}' },
    });
    const id = await execute(env, org, 'hooked', { inputs: { order: 42 } });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { order: 42, method: 'POST' });
  });

  it('starts a cron-only workflow by signal-with-start: the trigger fires and its wait receives the signal', async () => {
    await publish(env, org, {
      name: 'Asked nightly',
      key: 'asked',
      steps: {
        tick,
        ask: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'question', correlationKey: 'k-1', timeout: '1h' } },
      },
      connections: [{ from: 'tick', to: 'ask' }],
      outputs: { asked: '${{ steps.ask.outputs.payload.text }}', schedule: '${{ trigger.payload.schedule }}' },
    });
    const started = await org
      .auth(env.t.request.post('/workflows/signals/question'))
      .send({ correlationKey: 'k-1', payload: { text: 'why?' }, workflowId: 'asked', startIfNotWaiting: true });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const done = await waitFor(env, org, String(started.body.executionId), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { asked: 'why?', schedule: '0 3 * * *' });
  });

  it('asks which trigger to fire when there are several and none is manual; runs the one named', async () => {
    await publish(env, org, {
      name: 'Either',
      key: 'either',
      steps: { tick, hook, note: { ...note, joinStrategy: 'any' } },
      connections: [
        { from: 'tick', to: 'note' },
        { from: 'hook', to: 'note' },
      ],
      outputs: { method: '${{ trigger.payload.method }}' },
    });
    const refused = await org.auth(env.t.request.post('/workflows/definitions/either/execute')).send({});
    assertDialect('problem', refused, 400);
    assert.match(refused.body.type, /\/trigger-required$/);
    assert.match(refused.body.detail, /tick \(cron\)/);
    assert.match(refused.body.detail, /hook \(webhook\)/);
    assert.deepEqual(
      refused.body.errors.map((e: { path: string }) => e.path),
      ['/triggerId'],
    );

    const unknown = await org.auth(env.t.request.post('/workflows/definitions/either/execute')).send({ triggerId: 'note' });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.match(unknown.body.type, /\/trigger-not-found$/);
    assert.equal(await countExecutions(env.db, org.id), 0, 'a refused start records nothing');

    const id = await execute(env, org, 'either', { triggerId: 'hook' });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { method: 'POST' });
  });
});
