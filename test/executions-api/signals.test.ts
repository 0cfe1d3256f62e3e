import assert from 'node:assert/strict';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { loadConfig } from '../../config/config';
import { createTestApp } from '../support/app';
import { assertDialect } from '../support/dialects';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/** start ──▶ approval (signal-wait) ──▶ after (log); outputs carry the signal payload. */
const approval = (key: string, waitConfig: Record<string, unknown> = {}) => ({
  name: 'Approval',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d', ...waitConfig } },
    after: { type: 'module', pluginType: 'log', config: { message: 'approved by ${{ steps.approval.outputs.payload.by }}' } },
  },
  connections: [
    { from: 'start', to: 'approval' },
    { from: 'approval', to: 'after' },
  ],
  outputs: { payload: '${{ steps.approval.outputs.payload }}' },
});

const waiting = (body: Record<string, unknown>): boolean => body.status === 'waiting';

describe('executions API: signals, pending waits, cancel and terminate', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });

  const signal = (id: string, name: string, body?: unknown) => {
    const req = org.auth(env.t.request.post(`/workflows/executions/${id}/signals/${name}`));
    return body === undefined ? req : req.send(body as object);
  };

  it('shows a parked execution as waiting with its open wait, delivers the payload verbatim, and completes', async () => {
    await publish(env, org, approval('approve'));
    const id = await execute(env, org, 'approve');
    await waitFor(env, org, id, waiting);
    const pending = await org.auth(env.t.request.get(`/workflows/executions/${id}/pending-signals`)).expect(200);
    assert.deepEqual(
      pending.body.data.map((w: { stepId: string; signalNames: string[] }) => [w.stepId, w.signalNames]),
      [['approval', ['approve']]],
    );
    const state = await org.auth(env.t.request.get(`/workflows/executions/${id}/state`)).expect(200);
    assert.equal(state.body.status, 'waiting');
    assert.equal(state.body.live, true);
    assert.deepEqual(state.body.currentSteps, ['approval']);

    const payload = { by: 'ada', note: { nested: [1, 2, { deep: true }] }, empty: null };
    const res = await signal(id, 'approve', payload);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.delivered, true);
    assert.match(res.body.signalId, /^sig_[0-9a-f]+$/);
    assert.deepEqual(Object.keys(res.body).sort(), ['delivered', 'signalId']);

    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed');
    assert.deepEqual(done.outputs, { payload });
    const logs = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`)).expect(200);
    assert.deepEqual(
      logs.body.data.map((l: { message: string }) => l.message),
      ['approved by ada'],
    );
    // Finished: the same signal is no longer awaited.
    const late = await signal(id, 'approve', {});
    assertDialect('problem', late, 409);
  });

  it('answers 409 when the execution does not wait on that name, 404 for unknown or foreign executions, 400 for a non-object body', async () => {
    await publish(env, org, approval('wrong-name'));
    const id = await execute(env, org, 'wrong-name');
    await waitFor(env, org, id, waiting);
    const wrong = await signal(id, 'reject', { by: 'x' });
    assertDialect('problem', wrong, 409);
    assert.match(wrong.body.type, /\/signal-not-waiting$/);
    assertDialect('problem', await signal('exec_00000000000000000000000000000000', 'approve', {}), 404);
    assertDialect('problem', await org.otherAuth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({}), 404);
    assertDialect('problem', await signal(id, 'approve', [1, 2]), 400);
    assert.equal((await env.t.request.post(`/workflows/executions/${id}/signals/approve`).send({})).status, 401);
    // None of these released the wait.
    assert.equal((await org.auth(env.t.request.get(`/workflows/executions/${id}`))).body.status, 'waiting');
    // The list knows it too (from the recorded waits, without asking Temporal).
    let listed: Array<{ id: string }> = [];
    for (let i = 0; i < 100 && !listed.some((e) => e.id === id); i++) {
      listed = (await org.auth(env.t.request.get('/workflows/executions?status=waiting'))).body.data as Array<{ id: string }>;
      if (!listed.some((e) => e.id === id)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(
      listed.some((e) => e.id === id),
      'listed as waiting',
    );
    assert.equal((await signal(id, 'approve', { by: 'b' })).status, 200);
    await waitFor(env, org, id, finished);
  });

  it('releases one wait once under concurrent deliveries: one 200, one 409', async () => {
    await publish(env, org, approval('race'));
    const id = await execute(env, org, 'race');
    await waitFor(env, org, id, waiting);
    const responses = await Promise.all([signal(id, 'approve', { by: 'first' }), signal(id, 'approve', { by: 'second' })]);
    assert.deepEqual(responses.map((r) => r.status).sort(), [200, 409]);
    const winner = responses.find((r) => r.status === 200)!;
    assertDialect(
      'problem',
      responses.find((r) => r.status === 409)!,
      409,
    );
    const done = await waitFor(env, org, id, finished);
    const by = (done.outputs as { payload: { by: string } }).payload.by;
    assert.equal(by, responses[0] === winner ? 'first' : 'second');
  });

  it('delivers by correlation key to the execution whose wait declares it, 409 when none waits', async () => {
    await publish(env, org, approval('correlated', { correlationKey: 'order:${{ trigger.payload.order }}' }));
    const a = await execute(env, org, 'correlated', { inputs: { order: 'A' } });
    const b = await execute(env, org, 'correlated', { inputs: { order: 'B' } });
    await waitFor(env, org, a, waiting);
    await waitFor(env, org, b, waiting);
    const pending = await org.auth(env.t.request.get(`/workflows/executions/${b}/pending-signals`)).expect(200);
    assert.equal(pending.body.data[0].correlationKey, 'order:B');

    const send = (name: string, body: unknown) => org.auth(env.t.request.post(`/workflows/signals/${name}`)).send(body as object);
    const res = await send('approve', { correlationKey: 'order:B', payload: { by: 'bob' } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.delivered, true);
    assert.equal(res.body.executionId, b);
    const doneB = await waitFor(env, org, b, finished);
    assert.deepEqual(doneB.outputs, { payload: { by: 'bob' } });
    assert.equal((await org.auth(env.t.request.get(`/workflows/executions/${a}`))).body.status, 'waiting');
    // The released wait is no longer recorded; the open one still is.
    const recorded = await env.db.query<Array<{ execution_id: string }>>(
      `SELECT execution_id FROM execution_waits WHERE execution_id = ANY($1::text[])`,
      [[a, b]],
    );
    assert.deepEqual(
      recorded.map((row) => row.execution_id),
      [a],
    );

    for (const [name, body] of [
      ['approve', { correlationKey: 'order:B', payload: {} }],
      ['approve', { correlationKey: 'order:C' }],
      ['reject', { correlationKey: 'order:A' }],
      ['approve', { correlationKey: 'order:A', workflowId: 'ghost' }],
    ] as const) {
      const miss = await send(name, body);
      assertDialect('problem', miss, 409);
    }
    // Another organization cannot reach it either.
    assertDialect(
      'problem',
      await org.otherAuth(env.t.request.post('/workflows/signals/approve')).send({ correlationKey: 'order:A' }),
      409,
    );
    for (const bad of [{}, { correlationKey: 5 }, { correlationKey: 'order:A', extra: true }])
      assertDialect('problem', await send('approve', bad), 400);

    assert.equal((await send('approve', { correlationKey: 'order:A', workflowId: 'correlated', payload: { by: 'al' } })).status, 200);
    const doneA = await waitFor(env, org, a, finished);
    assert.deepEqual(doneA.outputs, { payload: { by: 'al' } });
  });

  it('cancels a waiting execution: 202, then recorded as cancelled; a second cancel is 409', async () => {
    await publish(env, org, approval('cancel-me'));
    const id = await execute(env, org, 'cancel-me');
    await waitFor(env, org, id, waiting);
    const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({ reason: 'no longer needed' });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.deepEqual(res.body, { executionId: id, cancelRequested: true });
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'cancelled');
    assert.deepEqual(done.error, { type: 'CANCELLED', message: 'no longer needed' }, 'the reason is on the record');
    assertDialect('problem', await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)), 409);
    assertDialect('problem', await signal(id, 'approve', {}), 409);
    assertDialect('problem', await org.otherAuth(env.t.request.post(`/workflows/executions/${id}/cancel`)), 404);
  });

  it('cancels without a reason: the record says it was cancelled', async () => {
    await publish(env, org, approval('cancel-plain'));
    const id = await execute(env, org, 'cancel-plain');
    await waitFor(env, org, id, waiting);
    assert.equal((await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`))).status, 202);
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual(done.error, { type: 'CANCELLED', message: 'the execution was cancelled' });
  });

  it('terminates a waiting execution: recorded as terminated at once; bad bodies are 400', async () => {
    await publish(env, org, approval('terminate-me'));
    const id = await execute(env, org, 'terminate-me');
    await waitFor(env, org, id, waiting);
    assertDialect('problem', await org.auth(env.t.request.post(`/workflows/executions/${id}/terminate`)).send({ reason: 5 }), 400);
    assertDialect('problem', await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({ unknown: 1 }), 400);
    assertDialect('problem', await org.otherAuth(env.t.request.post(`/workflows/executions/${id}/terminate`)).send({}), 404);
    const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/terminate`)).send({ reason: 'stuck' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'terminated');
    assert.deepEqual(res.body.error, { type: 'TERMINATED', message: 'stuck' });
    assert.equal((await org.auth(env.t.request.get(`/workflows/executions/${id}`))).body.status, 'terminated');
    const state = await org.auth(env.t.request.get(`/workflows/executions/${id}/state`)).expect(200);
    assert.equal(state.body.status, 'terminated');
    assertDialect('problem', await org.auth(env.t.request.post(`/workflows/executions/${id}/terminate`)), 409);
    assertDialect('problem', await signal(id, 'approve', {}), 409);
    const terminated = await env.temporal.client.workflow.getHandle(id).describe();
    assert.equal(terminated.status.name, 'TERMINATED');
  });

  it('answers 409 when the row still says running but Temporal has finished the workflow', async () => {
    await publish(env, org, approval('stale'));
    const id = await execute(env, org, 'stale');
    await waitFor(env, org, id, waiting);
    assert.equal((await signal(id, 'approve', { by: 'x' })).status, 200);
    await waitFor(env, org, id, finished);
    await env.temporal.client.workflow.getHandle(id).result();
    // As if the final write had not happened yet.
    await env.db.query(`UPDATE executions SET status = 'running' WHERE id = $1`, [id]);
    assertDialect('problem', await signal(id, 'approve', {}), 409);
    const terminate = await org.auth(env.t.request.post(`/workflows/executions/${id}/terminate`)).send({});
    assertDialect('problem', terminate, 409);
    // The answer names the run's real state, and the row is brought in line with it (issue 38), its outputs kept.
    assert.match(terminate.body.detail, /has already finished \(completed\)/);
    const row = await org.auth(env.t.request.get(`/workflows/executions/${id}`)).expect(200);
    assert.equal(row.body.status, 'completed', 'the row agrees with Temporal');
    assert.deepEqual(row.body.outputs, { payload: { by: 'x' } });
    assert.equal(row.body.error, undefined);
  });

  it('reads an execution no worker has picked up without hanging, and terminates it', async () => {
    // Same Temporal, but a task queue nobody polls.
    const deps = {
      config: { ...loadConfig(), temporalTaskQueue: `${env.taskQueue}-idle` },
      dataSource: env.db,
      temporal: env.temporal.client,
      encryptionKey: env.encryptionKey,
    };
    const idle = createTestApp({ routes: [...workflowRoutes(deps), ...executionRoutes(deps)] });
    const token = await idle.token({ organizationId: org.id, userId: org.userId });
    await publish(env, org, approval('idle'));
    const started = await idle.request.post('/workflows/definitions/idle/execute').set('Authorization', `Bearer ${token}`).send({});
    assert.equal(started.status, 202, JSON.stringify(started.body));
    const id: string = started.body.executionId;
    const before = Date.now();
    const read = await org.auth(env.t.request.get(`/workflows/executions/${id}`)).expect(200);
    assert.equal(read.body.status, 'running');
    const state = await org.auth(env.t.request.get(`/workflows/executions/${id}/state`)).expect(200);
    // Read from what PostgreSQL recorded: running (the state may still change), no step started yet.
    assert.deepEqual(
      { status: state.body.status, live: state.body.live, steps: state.body.steps },
      { status: 'running', live: true, steps: {} },
    );
    assert.ok(Date.now() - before < 10_000, 'reads never wait for a worker');
    const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/terminate`)).send({ reason: 'never picked up' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, 'terminated');
  });
});
