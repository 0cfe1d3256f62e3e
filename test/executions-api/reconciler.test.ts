import assert from 'node:assert/strict';
import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client, type WorkflowStartOptions } from '@temporalio/client';
import type { ExecutionEntity } from '../../db/entities/execution';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRevisionRepository, type Runnable } from '../../db/repositories/workflow-revision-repository';
import {
  firstRunId,
  newExecutionId,
  recordRun,
  recordedRunInput,
  startExecution,
  startExecutionWorkflow,
  sweepOnce,
  type NewRun,
  type SweepOptions,
  type SweepResult,
} from '../../executions';
import { captureLogger } from '../support/logger';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const PUBLIC_BASE_URL = 'http://api.test';

/** start (manual, input name) ──▶ log; output greeting. */
const greet = (key: string) => ({
  name: 'Greet',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: { inputs: { name: { type: 'string', required: true } } } },
    log: { type: 'module', pluginType: 'log', config: { message: 'hello ${{ trigger.payload.name }}' } },
  },
  connections: [{ from: 'start', to: 'log' }],
  outputs: { greeting: 'hello ${{ trigger.payload.name }}' },
});

/** start ──▶ approval (signal-wait): parks until signalled. */
const approval = (key: string) => ({
  name: 'Approval',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' } },
  },
  connections: [{ from: 'start', to: 'approval' }],
  outputs: { by: '${{ steps.approval.outputs.payload.by }}' },
});

const NOTHING: SweepResult = { recorded: [], started: [], lost: [], failed: [] };

describe('execution start reconciler', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });
  const log = captureLogger('info');

  const deps = () => ({
    dataSource: env.db,
    temporal: env.temporal.client,
    taskQueue: env.taskQueue,
    publicBaseUrl: PUBLIC_BASE_URL,
    limits: env.limits,
    logger: log.logger,
  });
  /** One sweep of this test's organization (the test database is shared), past no grace period unless told. */
  const sweep = (options: SweepOptions = {}) => sweepOnce(deps(), { graceMs: 0, organizationId: org.id, ...options });

  const runnableOf = async (ref: string): Promise<Runnable> => {
    const runnable = await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, ref, {});
    if (typeof runnable === 'string') throw new Error(`${ref}: ${runnable}`);
    return runnable;
  };

  /** Records an execution exactly as startExecution does, then "crashes": no workflow is started, no run id recorded. */
  const recordLost = async (ref: string, inputs: Record<string, unknown>, extra: Partial<NewRun> = {}): Promise<ExecutionEntity> => {
    const { row, created } = await recordRun(env.db, {
      id: newExecutionId(),
      organizationId: org.id,
      runnable: await runnableOf(ref),
      inputs,
      trigger: { stepId: 'start', source: 'manual', payload: inputs, receivedAt: new Date().toISOString() },
      createdBy: 'user-1',
      temporalNamespace: env.temporal.client.options.namespace,
      settings: { publicBaseUrl: PUBLIC_BASE_URL, limits: env.limits },
      ...extra,
    });
    assert.equal(created, true);
    return row;
  };

  const row = async (id: string): Promise<ExecutionEntity> =>
    (await new ExecutionRepository(env.db.manager).findInOrganization(org.id, id))!;
  const assertNoWorkflow = (id: string) => assert.rejects(env.temporal.client.workflow.getHandle(id).describe(), WorkflowNotFoundError);

  it('starts the workflow of an execution whose API died before the start: it completes, and the idempotent retry finds it', async () => {
    await publish(env, org, greet('greet'));
    const lost = await recordLost('greet', { name: 'Ada' }, { idempotencyKey: 'order-1' });
    await assertNoWorkflow(lost.id);
    // The client's retry is deduplicated onto the row that has no run.
    const retry = await org
      .auth(env.t.request.post('/workflows/definitions/greet/execute'))
      .send({ inputs: { name: 'Ada' }, idempotencyKey: 'order-1' });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.executionId, lost.id);
    assert.equal(retry.body.deduplicated, true);

    assert.deepEqual(await sweep(), { ...NOTHING, started: [lost.id] });
    const done = await waitFor(env, org, lost.id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { greeting: 'hello Ada' });
    const temporal = done.temporal as Record<string, string>;
    assert.equal(temporal.runId, await firstRunId(env.temporal.client, lost.id));
    assert.ok(log.entries().some((e) => e.msg === 'execution start reconciled' && e.executionId === lost.id && e.action === 'started'));
    // Repaired rows are no candidates any more.
    assert.deepEqual(await sweep(), NOTHING);
  });

  it('records the run id of a workflow that was started but never recorded, without starting it again', async () => {
    await publish(env, org, approval('started'));
    const lost = await recordLost('started', {});
    // The API started the workflow and died before recording its run id; the run parks on its wait.
    const start = async () =>
      startExecutionWorkflow(
        { temporal: env.temporal.client, taskQueue: env.taskQueue },
        lost,
        (await recordedRunInput(env.db, lost, { publicBaseUrl: PUBLIC_BASE_URL, limits: env.limits }))!,
      );
    const runId = await start();
    await waitFor(env, org, lost.id, (body) => body.status === 'waiting');
    assert.equal((await row(lost.id)).temporalRunId, null);

    assert.deepEqual(await sweep(), { ...NOTHING, recorded: [lost.id] });
    assert.equal((await row(lost.id)).temporalRunId, runId);
    // Still the one run; a late second start of the same execution is refused, running or closed.
    assert.equal((await env.temporal.client.workflow.getHandle(lost.id).describe()).runId, runId);
    await assert.rejects(start(), WorkflowExecutionAlreadyStartedError);

    await org
      .auth(env.t.request.post(`/workflows/executions/${lost.id}/signals/approve`))
      .send({ by: 'Bo' })
      .expect(200);
    const done = await waitFor(env, org, lost.id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { by: 'Bo' });
    await assert.rejects(start(), WorkflowExecutionAlreadyStartedError);
    assert.deepEqual(await sweep(), NOTHING);
  });

  it('leaves sub-workflow children, cron ticks and rows younger than the grace period alone', async () => {
    await publish(env, org, greet('alone'));
    const child = await recordLost('alone', { name: 'child' }, { parentExecutionId: newExecutionId(), idempotencyKey: 'child:1' });
    const tick = await recordLost(
      'alone',
      {},
      { trigger: { stepId: 'start', source: 'cron', payload: {}, receivedAt: new Date().toISOString() } },
    );
    const young = await recordLost('alone', { name: 'young' });
    // Child and tick are long past any grace period: only what they are keeps them out.
    await env.db.query(`UPDATE executions SET created_at = now() - interval '1 hour' WHERE id = ANY($1::text[])`, [[child.id, tick.id]]);

    assert.deepEqual(await sweep({ graceMs: 60_000 }), NOTHING);
    for (const id of [child.id, tick.id, young.id]) {
      const current = await row(id);
      assert.deepEqual([current.status, current.temporalRunId], ['running', null], id);
      await assertNoWorkflow(id);
    }

    // Past its grace period the young row is repaired; the child and the tick still are not.
    assert.deepEqual(await sweep(), { ...NOTHING, started: [young.id] });
    assert.equal((await waitFor(env, org, young.id, finished)).status, 'completed');
    for (const id of [child.id, tick.id]) {
      assert.equal((await row(id)).temporalRunId, null, id);
      await assertNoWorkflow(id);
    }
  });

  it('fails an execution whose revision was deleted before it could start with START_LOST', async () => {
    await publish(env, org, greet('deleted'));
    const lost = await recordLost('deleted', { name: 'gone' });
    await org.auth(env.t.request.delete('/workflows/definitions/deleted')).expect(204);

    assert.deepEqual(await sweep(), { ...NOTHING, lost: [lost.id] });
    const body = await waitFor(env, org, lost.id, finished);
    assert.equal(body.status, 'failed');
    assert.equal((body.error as { type: string }).type, 'START_LOST');
    assert.match((body.error as { message: string }).message, /revision 1/);
    await assertNoWorkflow(lost.id);
    assert.deepEqual(await sweep(), NOTHING);
  });

  it('an API start that loses the race to the reconciler keeps its row and records the run', async () => {
    await publish(env, org, greet('race'));
    const real = env.temporal.client;
    // The reconciler's start lands first (same workflow id), so the API's own start is refused as a duplicate.
    const racing = {
      options: real.options,
      connection: real.connection,
      workflow: {
        getHandle: real.workflow.getHandle.bind(real.workflow),
        start: async (type: string, options: WorkflowStartOptions) => {
          await real.workflow.start(type, options);
          throw new WorkflowExecutionAlreadyStartedError('Workflow execution already started', options.workflowId, type);
        },
      },
    } as unknown as Client;
    const { row: started, created } = await startExecution(
      { dataSource: env.db, temporal: racing, taskQueue: env.taskQueue, publicBaseUrl: PUBLIC_BASE_URL, limits: env.limits },
      {
        organizationId: org.id,
        runnable: await runnableOf('race'),
        inputs: { name: 'Cy' },
        trigger: { stepId: 'start', source: 'manual', payload: { name: 'Cy' }, receivedAt: new Date().toISOString() },
        createdBy: 'user-1',
      },
    );
    assert.equal(created, true);
    // The run id is written after the answer (not awaited): it comes within moments.
    await waitFor(env, org, started.id, (body) => (body.temporal as { runId?: string }).runId !== undefined);
    assert.equal((await row(started.id)).temporalRunId, await firstRunId(real, started.id));
    const done = await waitFor(env, org, started.id, finished);
    assert.deepEqual([done.status, done.outputs], ['completed', { greeting: 'hello Cy' }]);
    // An ordinary execution alongside is no candidate either.
    await waitFor(env, org, await execute(env, org, 'race', { inputs: { name: 'Di' } }), finished);
    assert.deepEqual(await sweep(), NOTHING);
  });
});
