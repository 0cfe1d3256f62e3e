/**
 * Signals (issue 18 §2): an optional idempotencyKey makes a delivery happen
 * once (a repeat, also a concurrent one, delivers nothing and answers as the
 * first did; the key lives in PostgreSQL), and signal-with-start on
 * POST /workflows/signals/{name} starts an execution of `workflowId` when none
 * waits (unless `startIfNotWaiting: false`, which answers 409). Through HTTP, PostgreSQL, Temporal
 * and the real worker.
 */
import assert from 'node:assert/strict';
import { countExecutions, execute, finished, publish, useExecEnv, waitFor } from './support';

/** start ──▶ first (signal-wait approve) ──▶ second (signal-wait approve): a repeated delivery would release the second. */
const twoWaits = (key: string) => ({
  name: key,
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    first: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '1d' } },
    second: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '1d' } },
  },
  connections: [
    { from: 'start', to: 'first' },
    { from: 'first', to: 'second' },
  ],
  outputs: { first: '${{ steps.first.outputs.payload }}', second: '${{ steps.second.outputs.payload }}' },
});

/** A Q&A run: its wait is keyed by the topic input. */
const questions = {
  name: 'qa',
  key: 'qa',
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: { inputs: { topic: { type: 'string', required: true } } } },
    question: {
      type: 'wait',
      pluginType: 'signal-wait',
      config: { signalName: 'question', correlationKey: 'topic:${{ workflow.inputs.topic }}', timeout: '1d' },
    },
  },
  connections: [{ from: 'start', to: 'question' }],
  outputs: { asked: '${{ steps.question.outputs.payload.text }}', topic: '${{ workflow.inputs.topic }}' },
};

describe('executions API: idempotent signals and signal-with-start', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });

  async function waitingOn(id: string, stepId: string): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const pending = await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`));
      if ((pending.body.data as Array<{ stepId: string }> | undefined)?.some((w) => w.stepId === stepId)) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${id} never waited on ${stepId}`);
  }

  const signal = (id: string, key: string | undefined, body: Record<string, unknown>) =>
    org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/approve${key === undefined ? '' : `?idempotencyKey=${key}`}`))
      .send(body);

  it('delivers once per idempotencyKey: a repeat, also a concurrent one, delivers nothing and answers as the first did', async () => {
    await publish(env, org, twoWaits('twice'));
    const id = await execute(env, org, 'twice');
    await waitingOn(id, 'first');

    const [a, b] = await Promise.all([signal(id, 'k-1', { n: 1 }), signal(id, 'k-1', { n: 1 })]);
    assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(b.status, 200, JSON.stringify(b.body));
    assert.equal(a.body.signalId, b.body.signalId, 'both answers name the one delivery');
    assert.equal([a.body, b.body].filter((body: { deduplicated?: boolean }) => body.deduplicated === true).length, 1);

    await waitingOn(id, 'second');
    const again = await signal(id, 'k-1', { n: 1 });
    assert.equal(again.status, 200);
    assert.equal(again.body.signalId, a.body.signalId);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const pending = await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`)).expect(200);
    assert.deepEqual(
      (pending.body.data as Array<{ stepId: string }>).map((w) => w.stepId),
      ['second'],
      'the repeats did not release the second wait',
    );

    const reused = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/other?idempotencyKey=k-1`)).send({});
    assert.equal(reused.status, 409);
    assert.match(String(reused.body.type), /idempotency-key-reused$/);

    assert.equal((await signal(id, 'k-2', { n: 2 })).status, 200);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.outputs, { first: { n: 1 }, second: { n: 2 } });
  });

  it('gives the key back when nothing was delivered, so a later repeat delivers', async () => {
    await publish(env, org, twoWaits('later'));
    const id = await execute(env, org, 'later');
    await waitingOn(id, 'first');
    const wrong = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/nobody?idempotencyKey=k-9`)).send({});
    assert.equal(wrong.status, 409);
    const rows = await env.db.query<unknown[]>(`SELECT 1 FROM signal_deliveries WHERE organization_id = $1`, [org.id]);
    assert.equal(rows.length, 0);
  });

  it('answers 409 when nothing waits and startIfNotWaiting is false; startIfNotWaiting starts a run whose wait receives the signal', async () => {
    await publish(env, org, questions);
    const body = { correlationKey: 'topic:billing', payload: { text: 'why?' }, workflowId: 'qa', inputs: { topic: 'billing' } };
    // Without the flag a start is the default (issue 41: as the compatible engine does); false keeps the 409.
    const refused = await org.auth(env.t.request.post('/workflows/signals/question')).send({ ...body, startIfNotWaiting: false });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(await countExecutions(env.db, org.id), 0);

    const started = await org
      .auth(env.t.request.post('/workflows/signals/question'))
      .send({ ...body, startIfNotWaiting: true, idempotencyKey: 'ask-1' });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    assert.equal(started.body.started, true);
    const done = await waitFor(env, org, String(started.body.executionId), finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { asked: 'why?', topic: 'billing' });

    const repeat = await org
      .auth(env.t.request.post('/workflows/signals/question'))
      .send({ ...body, startIfNotWaiting: true, idempotencyKey: 'ask-1' });
    assert.equal(repeat.status, 200);
    assert.deepEqual(
      { executionId: repeat.body.executionId, signalId: repeat.body.signalId, started: repeat.body.started },
      { executionId: started.body.executionId, signalId: started.body.signalId, started: true },
    );
    assert.equal(await countExecutions(env.db, org.id), 1, 'the repeat started nothing');
  });

  it('delivers to a waiting run instead of starting one, and refuses a start without workflowId', async () => {
    await publish(env, org, questions);
    const id = await execute(env, org, 'qa', { inputs: { topic: 'infra' } });
    await waitingOn(id, 'question');
    const res = await org.auth(env.t.request.post('/workflows/signals/question')).send({
      correlationKey: 'topic:infra',
      payload: { text: 'up?' },
      workflowId: 'qa',
      startIfNotWaiting: true,
      inputs: { topic: 'infra' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual([res.body.executionId, res.body.started], [id, false]);
    assert.equal(await countExecutions(env.db, org.id), 1);
    const noWorkflow = await org
      .auth(env.t.request.post('/workflows/signals/question'))
      .send({ correlationKey: 'k', startIfNotWaiting: true });
    assert.equal(noWorkflow.status, 400, JSON.stringify(noWorkflow.body));
  });
});
