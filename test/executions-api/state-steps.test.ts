/**
 * What `/state` says of the steps (issue 41), as the compatible engine shows them, through HTTP, PostgreSQL,
 * Temporal and the real worker: a step its `condition` skipped reads `skipped`; a step a terminate or cancel
 * interrupted reads `cancelled` (with how the execution ended) once the execution has ended, never `running`
 * (also when the open-runs sweep settles a run closed behind the API);
 * a fan-out's progress is `steps.x.fanOut` while it runs, not only in `metadata.fanOut` after it ends. And
 * signal-with-start: `{workflowId, correlationKey, payload}` starts a run when nobody waits.
 */
import assert from 'node:assert/strict';
import { checkOpenRuns } from '../../executions';
import { countExecutions, execute, finished, publish, useExecEnv, waitFor } from './support';

/** start ─▶ gated (log, condition false) ─▶ after (log); start ─▶ shown (log). */
const gated = {
  name: 'gated',
  key: 'gated',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    gated: { type: 'module', pluginType: 'log', condition: '${{ 1 > 2 }}', config: { message: 'never' } },
    after: { type: 'module', pluginType: 'log', config: { message: 'never either' } },
    shown: { type: 'module', pluginType: 'log', config: { message: 'shown' } },
  },
  connections: [
    { from: 'start', to: 'gated' },
    { from: 'gated', to: 'after' },
    { from: 'start', to: 'shown' },
  ],
};

/** start ─▶ before (log) ─▶ hold (signal-wait, a day). */
const held = (key: string) => ({
  name: key,
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    before: { type: 'module', pluginType: 'log', config: { message: 'before' } },
    hold: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1d' } },
  },
  connections: [
    { from: 'start', to: 'before' },
    { from: 'before', to: 'hold' },
  ],
});

/** start ─▶ people (code-exec, 4 items) ─▶ pause (delay 1s per item, one at a time). */
const fanOut = {
  name: 'fan',
  key: 'fan',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    people: {
      type: 'module',
      pluginType: 'code-exec',
      config: { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }];', returns: 'items' },
    },
    pause: { type: 'module', pluginType: 'delay', config: { duration: '1s' }, metadata: { maxParallelism: 1 } },
  },
  connections: [
    { from: 'start', to: 'people' },
    { from: 'people', to: 'pause' },
  ],
};

/** A Q&A run: its wait is keyed by the topic input. */
const questions = {
  name: 'qa',
  key: 'qa',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    question: {
      type: 'wait',
      pluginType: 'signal-wait',
      config: { signalName: 'question', correlationKey: 'topic:billing', timeout: '1d' },
    },
  },
  connections: [{ from: 'start', to: 'question' }],
  outputs: { asked: '${{ steps.question.outputs.payload.text }}' },
};

type StepView = { status: string; error?: { code: string }; fanOut?: { done: number; total: number; failed: number } };
type StateView = { status: string; live: boolean; currentSteps: string[]; steps: Record<string, StepView> };

describe('executions API: the steps /state shows, and signal-with-start by default', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });

  const state = async (id: string): Promise<StateView> => {
    const res = await org.auth(env.t.request.get(`/workflows/executions/${id}/state`)).expect(200);
    return res.body as StateView;
  };

  async function until(id: string, holds: (view: StateView) => boolean, what: string): Promise<StateView> {
    let last: StateView | undefined;
    for (let i = 0; i < 300; i++) {
      last = await state(id);
      if (holds(last)) return last;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${id}: ${what} never held: ${JSON.stringify(last)}`);
  }

  it('shows a step its condition skipped as skipped once the run has ended', async () => {
    await publish(env, org, gated);
    const id = await execute(env, org, 'gated');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const view = await state(id);
    assert.equal(view.steps.gated?.status, 'skipped', JSON.stringify(view.steps));
    assert.equal(view.steps.shown?.status, 'completed');
    assert.ok(!Object.values(view.steps).some((step) => step.status === 'running'), JSON.stringify(view.steps));
  });

  for (const how of ['terminate', 'cancel'] as const) {
    it(`shows a step interrupted by ${how} as ended (cancelled), not running, once the execution has ended`, async () => {
      await publish(env, org, held(`held-${how}`));
      const id = await execute(env, org, `held-${how}`);
      await until(id, (view) => view.status === 'waiting' && view.steps.hold?.status === 'running', 'the wait');
      await org
        .auth(env.t.request.post(`/workflows/executions/${id}/${how}`))
        .send({ reason: 'no longer needed' })
        .expect(how === 'terminate' ? 200 : 202);
      const ended = await until(id, (view) => !view.live, 'the end');
      const status = how === 'terminate' ? 'terminated' : 'cancelled';
      assert.equal(ended.status, status);
      assert.equal(ended.steps.before?.status, 'completed', 'a completed step keeps its result');
      assert.equal(ended.steps.hold?.status, 'cancelled', JSON.stringify(ended.steps.hold));
      assert.equal(ended.steps.hold?.error?.code, `EXECUTION_${status.toUpperCase()}`);
      assert.deepEqual(ended.currentSteps, []);
      const runs = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/hold`)).expect(200);
      assert.ok(
        (runs.body.runs as StepView[]).every((run) => run.status !== 'running'),
        JSON.stringify(runs.body),
      );
    });
  }

  it('settles the interrupted step when the open-runs sweep finds the run terminated behind the API', async () => {
    await publish(env, org, held('held-sweep'));
    const id = await execute(env, org, 'held-sweep');
    await until(id, (view) => view.status === 'waiting' && view.steps.hold?.status === 'running', 'the wait');
    await env.temporal.client.workflow.getHandle(id).terminate('from the Temporal UI');
    const passed = await checkOpenRuns({ dataSource: env.db, temporal: env.temporal.client }, { graceMs: 0, organizationId: org.id });
    assert.deepEqual(passed.settled, [{ id, status: 'terminated' }]);
    const ended = await state(id);
    assert.equal(ended.live, false);
    assert.equal(ended.steps.hold?.status, 'cancelled', JSON.stringify(ended.steps.hold));
    assert.equal(ended.steps.hold?.error?.code, 'EXECUTION_TERMINATED');
  });

  it('shows steps.x.fanOut while a fan-out runs, updated as its items complete, then as its end recorded it', async () => {
    await publish(env, org, fanOut);
    const id = await execute(env, org, 'fan');
    const midway = await until(
      id,
      (view) => view.steps.pause?.status === 'running' && (view.steps.pause.fanOut?.done ?? 0) >= 1,
      'progress of the running fan-out',
    );
    assert.equal(midway.steps.pause.fanOut?.total, 4);
    assert.ok(midway.steps.pause.fanOut.done < 4, JSON.stringify(midway.steps.pause));
    assert.equal(midway.steps.pause.fanOut?.failed, 0);
    await waitFor(env, org, id, finished);
    const ended = await state(id);
    assert.equal(ended.status, 'completed');
    assert.deepEqual(ended.steps.pause.fanOut, { done: 4, total: 4, failed: 0 });
  });

  it('starts a run for {workflowId, correlationKey, payload} when nobody waits; startIfNotWaiting: false answers 409', async () => {
    await publish(env, org, questions);
    const body = { workflowId: 'qa', correlationKey: 'topic:billing', payload: { text: 'why?' } };
    const refused = await org.auth(env.t.request.post('/workflows/signals/question')).send({ ...body, startIfNotWaiting: false });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(await countExecutions(env.db, org.id), 0);

    const started = await org.auth(env.t.request.post('/workflows/signals/question')).send(body);
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.started, true);
    const done = await waitFor(env, org, String(started.body.executionId), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { asked: 'why?' });

    const withoutWorkflow = await org.auth(env.t.request.post('/workflows/signals/question')).send({ correlationKey: 'k', payload: {} });
    assert.equal(withoutWorkflow.status, 409, 'nothing to start without workflowId');
  });
});
