/**
 * Reads of a running execution answer from PostgreSQL alone: GET, `/state` and
 * `/pending-signals` send no query to Temporal (a query wakes a worker and may
 * replay the run). The API under test gets a Temporal client that counts the
 * queries it sends; the counter is shown to count by one query of its own.
 */
import assert from 'node:assert/strict';
import { Client } from '@temporalio/client';
import { executionRoutes } from '../../api/executions';
import type { ExecutionDeps } from '../../api/executions/deps';
import { recordedState } from '../../api/executions/recorded-state';
import { workflowRoutes } from '../../api/workflows';
import { loadConfig } from '../../config/config';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { stateQuery } from '../../workflows/messages';
import { createTestApp } from '../support/app';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

/**
 * start ─▶ note (set-variable) ─▶ approval (signal-wait, 2 days)
 *       └▶ pause (delay) ─▶ after_pause (log)
 * While `pause` runs, a step runs that waits on nothing: running. Once it is done, only the wait is left: waiting.
 */
const parked = (key: string, pause: string) => ({
  name: 'Parked',
  key,
  variables: { stage: { initialValue: 'new' } },
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    note: { type: 'module', pluginType: 'set-variable', config: { path: 'stage', value: 'asked' } },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', correlationKey: 'req-7', timeout: '2d' } },
    pause: { type: 'module', pluginType: 'delay', config: { duration: pause } },
    after_pause: { type: 'module', pluginType: 'log', config: { message: 'paused' } },
  },
  connections: [
    { from: 'start', to: 'note' },
    { from: 'note', to: 'approval' },
    { from: 'start', to: 'pause' },
    { from: 'pause', to: 'after_pause' },
  ],
  outputs: { stage: '${{ variables.stage }}' },
});

describe('executions API: reads of a running execution come from PostgreSQL, never a Temporal query', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv();
  let queries = 0;
  let temporal: Client;
  let reader: ReturnType<typeof createTestApp>;
  let readerToken: string;
  const read = (path: string) => reader.request.get(path).set('Authorization', `Bearer ${readerToken}`);

  before(async () => {
    // The same API, on a client that counts the queries it sends.
    temporal = new Client({
      connection: env.temporal.client.connection,
      namespace: env.temporal.namespace ?? 'default',
      interceptors: {
        workflow: [
          {
            async query(input, next) {
              queries += 1;
              return next(input);
            },
          },
        ],
      },
    });
    const deps = {
      config: { ...loadConfig(), publicBaseUrl: 'http://api.test', temporalTaskQueue: env.taskQueue },
      dataSource: env.db,
      temporal,
      encryptionKey: env.encryptionKey,
    };
    reader = createTestApp({ routes: [...workflowRoutes(deps), ...executionRoutes(deps)] });
    readerToken = await reader.token({ organizationId: org.id, userId: org.userId });
  });

  // One parked run read while it waits and after (each test picks up where the one before left off).
  let id: string;
  let state: {
    status: string;
    live: boolean;
    currentSteps: string[];
    variables: Record<string, unknown>;
    steps: Record<string, { status: string }>;
    pendingWaits: Array<{ stepId: string; signalNames: string[]; correlationKey: string; timeoutAt: string; since: string }>;
  };

  it('shows running while a branch runs beside the open wait', async () => {
    await publish(env, org, parked('parked', '1s'));
    id = await execute(env, org, 'parked');
    queries = 0;

    // The delay runs beside the open wait: running, though a wait is open.
    const running = await waitFor(env, org, id, (body) => Array.isArray(body.pendingWaits) && body.pendingWaits.length === 1, '/state');
    assert.equal(running.status, (running.currentSteps as string[]).includes('pause') ? 'running' : 'waiting');
  });

  it('then waiting: the state names the open wait, the running steps and the variables', async () => {
    const waiting = await waitFor(env, org, id, (body) => body.status === 'waiting');
    assert.equal(waiting.id, id);
    state = (await read(`/workflows/executions/${id}/state`).expect(200)).body;
    assert.equal(state.status, 'waiting');
    assert.equal(state.live, true);
    assert.deepEqual(state.currentSteps, ['approval']);
    assert.deepEqual(state.variables, { stage: 'asked' });
    assert.deepEqual(Object.keys(state.steps).sort(), ['after_pause', 'approval', 'note', 'pause', 'start']);
    assert.equal(state.steps.approval.status, 'running');
    assert.equal(state.steps.pause.status, 'completed');
    assert.equal(state.pendingWaits.length, 1);
  });

  it("reads the state in one snapshot, its status included: the access check's row may be older", async () => {
    // The row the access check read while `pause` still ran; the batch that ended it committed since.
    const stale = { ...(await new ExecutionRepository(env.db.manager).findAnywhere(id))!, status: 'running' as const };
    const read = await recordedState({ dataSource: env.db, callbackKey: Buffer.alloc(32) } as ExecutionDeps, stale);
    assert.deepEqual(
      { status: read.status, currentSteps: read.currentSteps, live: read.live },
      { status: 'waiting', currentSteps: ['approval'], live: true },
    );
    assert.equal(read.pendingWaits.length, 1);
  });

  it('the open wait: its step, signal, correlation key and timeout, read as pending signals too', async () => {
    const [wait] = state.pendingWaits;
    assert.deepEqual(
      { stepId: wait.stepId, signalNames: wait.signalNames, correlationKey: wait.correlationKey },
      { stepId: 'approval', signalNames: ['approve'], correlationKey: 'req-7' },
    );
    const days = (Date.parse(wait.timeoutAt) - Date.parse(wait.since)) / 86_400_000;
    assert.equal(days, 2, 'the wait times out two days after it opened');
    const pending = (await read(`/workflows/executions/${id}/pending-signals`).expect(200)).body;
    assert.deepEqual(pending, { data: state.pendingWaits });
  });

  it('no read sent a query to Temporal, though the workflow answers one sent through the same client', async () => {
    assert.equal((await read(`/workflows/executions/${id}`).expect(200)).body.status, 'waiting');
    assert.equal(queries, 0, 'no read sent a query to Temporal');

    // The counter counts: the workflow still answers a query (Temporal UI, CLI) sent through the same client.
    assert.equal((await temporal.workflow.getHandle(id).query(stateQuery)).status, 'waiting');
    assert.equal(queries, 1);
  });

  it('once signalled it completes, and its state is no longer live, with no open wait', async () => {
    const delivered = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ by: 'ada' });
    assert.equal(delivered.status, 200, JSON.stringify(delivered.body));
    const done = await waitFor(env, org, id, finished);
    assert.deepEqual({ status: done.status, outputs: done.outputs }, { status: 'completed', outputs: { stage: 'asked' } });
    const ended = (await read(`/workflows/executions/${id}/state`).expect(200)).body;
    assert.deepEqual(
      {
        status: ended.status,
        live: ended.live,
        currentSteps: ended.currentSteps,
        pendingWaits: ended.pendingWaits,
        variables: ended.variables,
      },
      { status: 'completed', live: false, currentSteps: [], pendingWaits: [], variables: { stage: 'asked' } },
    );
    assert.deepEqual((await read(`/workflows/executions/${id}/pending-signals`).expect(200)).body, { data: [] });
  });
});
