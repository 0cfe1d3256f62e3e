/**
 * Flow control (issue 44, executions/flow/) through the HTTP API on PostgreSQL and Temporal: concurrency
 * keys that queue, cancel the run in progress or refuse; queued runs read, listed and cancelled; the sweeps
 * that start a queued run whose slot a lost process never handed on; throttle and debounce, whose due runs
 * the flow sweep starts (called here as the API's timer would). Times are asserted as recorded, never by
 * how fast the machine is.
 */
import assert from 'node:assert/strict';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { createHttpMetrics } from '../../api/ops/metrics';
import { prepareScheduledRun, queuedGauge, sweepDue, sweepOnce, sweepQueuedKeys } from '../../executions';
import { captureLogger } from '../support/logger';
import { signedHeaders } from '../support/webhook-signing';
import { execute, publish, useExecEnv, waitFor, type ExecEnv } from './support';

type Body = Record<string, unknown>;
const SECRET = 'flow-hook-secret';

/** start (manual, input app) ──▶ gate (signal-wait `go`): holds its slot until signalled. */
const gated = (flow: Record<string, unknown>) => ({
  name: 'Deploy',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    gate: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1h' } },
  },
  connections: [{ from: 'start', to: 'gate' }],
  outputs: { n: '${{ workflow.inputs.n }}' },
  ...flow,
});

/** start (manual) ──▶ log: ends at once. */
const quick = (flow: Record<string, unknown>) => ({
  name: 'Quick',
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    note: { type: 'module', pluginType: 'log', config: { message: 'n=${{ workflow.inputs.n }}' } },
  },
  connections: [{ from: 'start', to: 'note' }],
  outputs: { n: '${{ workflow.inputs.n }}' },
  ...flow,
});

const status = (wanted: string) => (body: Body) => body.status === wanted;

describe('executions API: flow control', function () {
  this.timeout(240_000);
  const { x, c } = useExecEnv({ org: 'each' });
  const log = captureLogger('info');
  const deps = (env: ExecEnv) => ({
    dataSource: env.db,
    temporal: env.env.client,
    taskQueue: env.taskQueue,
    publicBaseUrl: 'http://api.test',
    limits: env.limits,
    logger: log.logger,
  });

  const start = async (workflowId: string, inputs: Body = {}) =>
    c.auth(x.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({ inputs });
  const get = async (id: string): Promise<Body> => (await c.auth(x.t.request.get(`/workflows/executions/${id}`)).expect(200)).body as Body;
  const go = async (id: string) =>
    c
      .auth(x.t.request.post(`/workflows/executions/${id}/signals/go`))
      .send({})
      .expect(200);
  /** Calls the flow sweep (the API's timer) until `done` holds. */
  const sweepUntil = async (done: () => Promise<boolean>, timeoutMs = 60_000) => {
    for (const until = Date.now() + timeoutMs; Date.now() < until;) {
      await sweepDue(deps(x), { organizationId: c.org });
      if (await done()) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    throw new Error('the swept runs did not all end in time');
  };

  it('runs 20 starts of one concurrency key (limit 1) one at a time, in order, none lost or doubled; another key runs beside them', async () => {
    const workflowId = await publish(x, c, gated({ concurrency: { key: 'app-${{ workflow.inputs.app }}', limit: 1 } }));
    const ids: string[] = [];
    for (let n = 0; n < 20; n += 1) {
      const res = await start(workflowId, { app: 'a', n });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.equal(res.body.status, n === 0 ? 'running' : 'queued');
      ids.push(res.body.executionId as string);
    }
    // Another key has its own slot.
    const other = await start(workflowId, { app: 'b', n: 99 });
    assert.equal(other.body.status, 'running');
    await waitFor(x, c, other.body.executionId as string, status('waiting'));

    const second = await get(ids[1]);
    assert.equal(second.status, 'queued');
    assert.deepEqual(second.flowControl, { kind: 'concurrency', key: 'app-a', position: 1 });
    assert.equal(((await get(ids[19])).flowControl as Body).position, 19);

    for (let n = 0; n < 20; n += 1) {
      await waitFor(x, c, ids[n], status('waiting'), '', 30_000);
      // While run n holds the slot, every later one is still queued.
      const later = await x.db.query<Array<{ n: number }>>(
        `SELECT count(*)::int AS n FROM executions WHERE id = ANY($1) AND status <> 'queued'`,
        [ids.slice(n + 1)],
      );
      assert.equal(later[0].n, 0, `only run ${n} holds the slot`);
      await go(ids[n]);
      await waitFor(x, c, ids[n], status('completed'), '', 30_000);
    }
    const rows = await new ExecutionRepository(x.db.manager).find({ where: ids.map((id) => ({ id })) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (let n = 1; n < 20; n += 1) {
      const previous = byId.get(ids[n - 1])!;
      const current = byId.get(ids[n])!;
      assert.equal(current.status, 'completed');
      assert.deepEqual(current.outputs, { n });
      // Admitted only once the one before it had ended.
      assert.ok(current.admittedAt!.getTime() >= previous.completedAt!.getTime(), `run ${n} started after run ${n - 1} ended`);
    }
    const all = await x.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE workflow_id = $1`, [workflowId]);
    assert.equal(all[0].n, 21, 'nothing lost, nothing doubled');
    await go(other.body.executionId as string);
  });

  it('cancel-in-progress cancels the run holding the key and starts the new one: only the newest is left', async () => {
    const workflowId = await publish(x, c, gated({ concurrency: { onLimit: 'cancel-in-progress' } }));
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const res = await start(workflowId, { n });
      assert.equal(res.status, 202);
      assert.equal(res.body.status, 'running');
      ids.push(res.body.executionId as string);
      await waitFor(x, c, ids[n], status('waiting'));
    }
    for (const id of ids.slice(0, 2)) {
      const ended = await waitFor(x, c, id, status('cancelled'));
      assert.match(String((ended.error as Body).message), /cancel-in-progress/);
      // Cancelled in Temporal too: the run is closed, not left going behind its record.
      const handle = x.env.client.workflow.getHandle(id);
      for (let i = 0; i < 100 && (await handle.describe()).status.name === 'RUNNING'; i += 1) await new Promise((r) => setTimeout(r, 100));
      assert.equal((await handle.describe()).status.name, 'CANCELLED');
    }
    assert.equal((await get(ids[2])).status, 'waiting');
    await go(ids[2]);
    await waitFor(x, c, ids[2], status('completed'));
  });

  it('refuse answers 409 naming the key and the execution holding it', async () => {
    const workflowId = await publish(x, c, gated({ concurrency: { key: 'db-${{ workflow.inputs.db }}', onLimit: 'refuse' } }));
    const first = await start(workflowId, { db: 'main' });
    assert.equal(first.status, 202);
    const refused = await start(workflowId, { db: 'main' });
    assert.equal(refused.status, 409);
    assert.match(String(refused.body.type), /\/flow-limit-reached$/, JSON.stringify(refused.body));
    assert.equal(refused.body.flowKey, 'db-main');
    assert.deepEqual(refused.body.heldBy, [first.body.executionId]);
    assert.match(String(refused.body.detail), new RegExp(String(first.body.executionId)));
    const all = await x.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE workflow_id = $1`, [workflowId]);
    assert.equal(all[0].n, 1, 'a refused start records nothing');
    await waitFor(x, c, first.body.executionId as string, status('waiting'));
    await go(first.body.executionId as string);
    await waitFor(x, c, first.body.executionId as string, status('completed'));
    assert.equal((await start(workflowId, { db: 'main' })).status, 202, 'the slot is free once the holder ended');
  });

  it('a queued run is read with its key and place, listed by ?status=queued, and cancelled without freeing anything', async () => {
    const workflowId = await publish(x, c, gated({ concurrency: { limit: 1, maxQueued: 2 } }));
    const holder = (await start(workflowId, { n: 0 })).body.executionId as string;
    const queued = [(await start(workflowId, { n: 1 })).body.executionId, (await start(workflowId, { n: 2 })).body.executionId];
    const full = await start(workflowId, { n: 3 });
    assert.equal(full.status, 429, 'maxQueued refuses past the queue');
    assert.equal(full.body.scope, 'key');

    // The metrics' queue gauges count them.
    const gauge = await queuedGauge(deps(x));
    assert.ok(gauge.queued >= 2, JSON.stringify(gauge));
    const metrics = createHttpMetrics();
    metrics.flowSwept(gauge, [1.5]);
    const text = await metrics.text();
    assert.match(text, new RegExp(`^executions_queued ${gauge.queued}$`, 'm'));
    assert.match(text, /^executions_queue_wait_seconds_count 1$/m);

    const listed = await c.auth(x.t.request.get(`/workflows/executions?status=queued&workflowId=${workflowId}`)).expect(200);
    assert.deepEqual(listed.body.data.map((row: Body) => row.id).sort(), [...queued].sort());
    assert.equal(((await get(queued[1] as string)).flowControl as Body).position, 2);

    await c
      .auth(x.t.request.post(`/workflows/executions/${queued[0]}/cancel`))
      .send({ reason: 'not this one' })
      .expect(202);
    const cancelled = await get(queued[0] as string);
    assert.equal(cancelled.status, 'cancelled');
    assert.deepEqual(cancelled.error, { type: 'CANCELLED', message: 'not this one' });
    await assert.rejects(x.env.client.workflow.getHandle(queued[0] as string).describe(), WorkflowNotFoundError);
    // Nothing freed: the holder still holds, the other queued run moved up.
    assert.equal((await waitFor(x, c, holder, status('waiting'))).status, 'waiting');
    assert.equal(((await get(queued[1] as string)).flowControl as Body).position, 1);
    assert.equal((await get(queued[1] as string)).status, 'queued');
    await c
      .auth(x.t.request.post(`/workflows/executions/${queued[0]}/cancel`))
      .send({})
      .expect(409);
    // Terminate ends a queued run too, at once.
    const another = (await start(workflowId, { n: 4 })).body.executionId as string;
    const terminated = await c
      .auth(x.t.request.post(`/workflows/executions/${another}/terminate`))
      .send({ reason: 'gone' })
      .expect(200);
    assert.equal(terminated.body.status, 'terminated');
    assert.deepEqual(terminated.body.error, { type: 'TERMINATED', message: 'gone' });

    await go(holder);
    await waitFor(x, c, queued[1] as string, status('waiting'));
    await go(queued[1] as string);
    await waitFor(x, c, queued[1] as string, status('completed'));
  });

  it('the sweeps start a queued run whose slot a lost process never handed on, and a promoted run whose start was lost', async () => {
    const workflowId = await publish(x, c, gated({ concurrency: {} }));
    const holder = await execute(x, c, workflowId, { inputs: { n: 0 } });
    const next = (await start(workflowId, { n: 1 })).body.executionId as string;
    const last = (await start(workflowId, { n: 2 })).body.executionId as string;
    await waitFor(x, c, holder, status('waiting'));
    // The holder's end written by a process that died before promoting (its workflow goes on unrecorded: end it too).
    await x.env.client.workflow.getHandle(holder).terminate('lost');
    await new ExecutionRepository(x.db.manager).finish(holder, 'terminated', null, { type: 'TERMINATED', message: 'lost' });
    assert.equal((await get(next)).status, 'queued', 'nobody promoted it');

    // After a restart: the reconciler's key sweep finds the free slot.
    assert.deepEqual(await sweepQueuedKeys(deps(x), { organizationId: c.org }), [next]);
    await waitFor(x, c, next, status('waiting'));
    assert.equal((await get(last)).status, 'queued');

    // A promotion whose Temporal start was lost: the row is running with no run, which the start reconciler starts.
    await x.env.client.workflow.getHandle(next).terminate('lost');
    await new ExecutionRepository(x.db.manager).finish(next, 'terminated', null, { type: 'TERMINATED', message: 'lost' });
    await x.db.query(`UPDATE executions SET status = 'running', admitted_at = now() WHERE id = $1`, [last]);
    const swept = await sweepOnce(deps(x), { organizationId: c.org, graceMs: 0 });
    assert.deepEqual(swept.started, [last]);
    await waitFor(x, c, last, status('waiting'));
    await go(last);
    await waitFor(x, c, last, status('completed'));
  });

  it('a throttle of 2 per 10 s spaces 6 starts: two per period, in order', async () => {
    const workflowId = await publish(x, c, quick({ throttle: { limit: 2, period: '10s' } }));
    const ids: string[] = [];
    for (let n = 0; n < 6; n += 1) {
      const res = await start(workflowId, { n });
      assert.equal(res.status, 202);
      assert.equal(res.body.status, n < 2 ? 'running' : 'queued');
      ids.push(res.body.executionId as string);
    }
    const repository = new ExecutionRepository(x.db.manager);
    await sweepUntil(
      async () => (await repository.find({ where: ids.map((id) => ({ id })) })).every((row) => row.status === 'completed'),
      90_000,
    );
    const rows = await repository.find({ where: ids.map((id) => ({ id })) });
    const byId = new Map(rows.map((row) => [row.id, row]));
    const planned = ids.map((id) => byId.get(id)!.notBefore!.getTime());
    for (let n = 0; n < 6; n += 1) {
      const row = byId.get(ids[n])!;
      assert.deepEqual(row.outputs, { n });
      assert.ok(row.admittedAt!.getTime() >= row.notBefore!.getTime(), `run ${n} started no earlier than planned`);
      // Each run is at least a period after the run two before it: never three in one period.
      if (n >= 2) assert.ok(planned[n] - planned[n - 2] >= 10_000, `run ${n} is a period after run ${n - 2}`);
      if (n >= 1) assert.ok(row.admittedAt!.getTime() >= byId.get(ids[n - 1])!.admittedAt!.getTime(), 'started in order');
    }
    assert.ok(planned[5] - planned[0] >= 20_000, 'six starts take three periods');
  });

  it('a debounce folds 20 webhook deliveries into one run with the last payload', async () => {
    const workflowId = await publish(x, c, {
      name: 'Hooked',
      debounce: { period: '2s', maxWait: '1m' },
      steps: [
        { id: 'hook', type: 'trigger', pluginType: 'webhook', config: { mode: 'start', method: 'POST', secret: SECRET } },
        {
          id: 'note',
          type: 'module',
          pluginType: 'log',
          config: { message: 'push ${{ steps.hook.outputs.body.n }}' },
          dependsOn: ['hook'],
        },
      ],
      outputs: { n: '${{ steps.hook.outputs.body.n }}' },
    });
    await c.auth(x.t.request.post(`/workflows/definitions/${workflowId}/aliases/latest/activate`)).expect(200);
    const aliases = await c.auth(x.t.request.get(`/workflows/definitions/${workflowId}/aliases`));
    const path = new URL(aliases.body.data[0].triggerStates.hook.runtimeMetadata.webhookUrl as string).pathname;
    const answered = new Set<string>();
    for (let n = 0; n < 20; n += 1) {
      const body = JSON.stringify({ n });
      const res = await x.t.request.post(path).set('Content-Type', 'application/json').set(signedHeaders(body, SECRET)).send(body);
      assert.equal(res.status, 202, JSON.stringify(res.body));
      if (n > 0) assert.equal(res.body.debounced, true);
      answered.add(res.body.executionId as string);
    }
    assert.equal(answered.size, 1, 'every delivery names the one run');
    const [id] = [...answered];
    assert.equal((await get(id)).status, 'queued');
    await sweepUntil(async () => (await get(id)).status === 'completed');
    const run = await get(id);
    assert.deepEqual(run.outputs, { n: 19 });
    const all = await x.db.query<Array<{ n: number }>>(`SELECT count(*)::int AS n FROM executions WHERE workflow_id = $1`, [workflowId]);
    assert.equal(all[0].n, 1, 'one run for the burst');
  });

  it('every trigger kind goes through it: a re-run queues, a sub-workflow child at a full key fails its parent step, a cron tick is queued as its own execution', async () => {
    const flow = { concurrency: { key: 'k' } };
    const childId = await publish(x, c, { ...gated(flow), key: 'flow-child' });
    const holder = (await start(childId, { n: 0 })).body.executionId as string;
    await waitFor(x, c, holder, status('waiting'));

    const rerun = await c
      .auth(x.t.request.post(`/workflows/executions/${holder}/rerun`))
      .send({})
      .expect(202);
    assert.equal(rerun.body.status, 'queued');

    const parentId = await publish(x, c, {
      name: 'Parent',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual' },
        { id: 'child', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'flow-child' }, dependsOn: ['start'] },
      ],
    });
    const parent = await waitFor(x, c, await execute(x, c, parentId), (body) => !['running', 'waiting'].includes(String(body.status)));
    assert.equal(parent.status, 'failed');
    assert.equal((parent.error as Body).type, 'SUBWORKFLOW_FLOW_LIMIT');
    assert.match(String((parent.error as Body).message), new RegExp(holder));

    const tickId = `cron-flow-${Date.now()}`;
    const prepare = {
      dataSource: x.db,
      temporalNamespace: x.env.namespace ?? 'default',
      limits: x.limits,
      reach: { nrnOf: () => '', reaches: () => true },
    };
    const tick = {
      start: {
        organizationId: c.org,
        workflowId: childId,
        alias: 'latest',
        revision: 1,
        trigger: { id: 'start', pluginType: 'cron' as const, schedule: '0 3 * * *' },
      },
      executionId: tickId,
      runId: 'run',
      firedAt: Date.UTC(2030, 0, 1, 3),
    };
    await assert.rejects(prepareScheduledRun(prepare, tick), (error: Error) => error.name === 'TickQueued');
    const [queuedTick] = await x.db.query<Array<{ id: string; status: string }>>(
      `SELECT id, status, trigger FROM executions WHERE workflow_id = $1 AND trigger->>'source' = 'cron'`,
      [childId],
    );
    assert.equal(queuedTick.status, 'queued');
    assert.notEqual(queuedTick.id, tickId, "queued under an id of its own: the tick's id names its running schedule run");

    // In order: the holder, then the re-run, then the tick, each started when the one before ended.
    for (const id of [holder, rerun.body.executionId as string, queuedTick.id]) {
      await waitFor(x, c, id, status('waiting'), '', 30_000);
      await go(id);
      await waitFor(x, c, id, status('completed'));
    }
  });

  it("an alias's own flow control replaces the definition's for runs under it", async () => {
    const workflowId = await publish(x, c, gated({}));
    const put = (flowControl: unknown) =>
      c.auth(x.t.request.put(`/workflows/definitions/${workflowId}/aliases/prod`)).send({ revision: 1, flowControl });
    const bad = await put({ concurrency: { onLimit: 'sometimes' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.errors[0].path, '/flowControl/concurrency/onLimit');
    const set = await put({ concurrency: { onLimit: 'refuse' } });
    assert.equal(set.status, 201, JSON.stringify(set.body));
    assert.deepEqual(set.body.flowControl, { concurrency: { onLimit: 'refuse' } });
    const run = (alias: string) => c.auth(x.t.request.post(`/workflows/definitions/${workflowId}/execute`)).send({ alias });
    const first = await run('prod');
    assert.equal(first.status, 202);
    assert.equal((await run('prod')).status, 409, 'the alias refuses a second run');
    const free = [await run('latest'), await run('latest')];
    assert.deepEqual(
      free.map((res) => res.body.status as string),
      ['running', 'running'],
      'latest has no flow control',
    );
    for (const id of [first.body.executionId as string, ...free.map((res) => res.body.executionId as string)]) {
      await waitFor(x, c, id, status('waiting'));
      await go(id);
    }
  });

  it('refuses bad flow-control values at publish, each at its path', async () => {
    const res = await c.auth(x.t.request.post('/workflows/definitions')).send(
      quick({
        concurrency: { key: '${{ steps.x.outputs.y }}', limit: 0, onLimit: 'later', maxQueued: 5, group: 'a' },
      }),
    );
    assert.equal(res.status, 400, JSON.stringify(res.body));
    const paths = (res.body.errors as Array<{ path: string; message: string }>).map((e) => `${e.path}: ${e.message}`);
    assert.ok(
      paths.some((p) => p.startsWith('/concurrency/key:') && p.includes('workflow.inputs')),
      paths.join('\n'),
    );
    assert.ok(
      paths.some((p) => p.startsWith('/concurrency/limit:')),
      paths.join('\n'),
    );
    assert.ok(
      paths.some((p) => p.startsWith('/concurrency/onLimit:')),
      paths.join('\n'),
    );
    assert.ok(
      paths.some((p) => p.startsWith('/concurrency/maxQueued:')),
      paths.join('\n'),
    );
    assert.ok(
      paths.some((p) => p.startsWith('/concurrency/group:')),
      paths.join('\n'),
    );
    const both = await c
      .auth(x.t.request.post('/workflows/definitions'))
      .send(quick({ throttle: { limit: 2 }, debounce: { period: '5s', maxWait: '1s' } }));
    assert.equal(both.status, 400);
    const more = (both.body.errors as Array<{ path: string; message: string }>).map((e) => `${e.path}: ${e.message}`);
    assert.ok(
      more.some((p) => p.startsWith('/debounce:') && p.includes('only one')),
      more.join('\n'),
    );
    assert.ok(
      more.some((p) => p.startsWith('/throttle/period:')),
      more.join('\n'),
    );
    assert.ok(
      more.some((p) => p.startsWith('/debounce/maxWait:')),
      more.join('\n'),
    );
  });
});
