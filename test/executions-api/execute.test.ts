import assert from 'node:assert/strict';
import type { Client } from '@temporalio/client';
import type { Response } from 'supertest';
import { executionRoutes } from '../../api/executions';
import { workflowRoutes } from '../../api/workflows';
import { loadConfig } from '../../config/config';
import { createTestApp } from '../support/app';
import { assertDialect } from '../support/dialects';
import { late } from '../support/late';
import { TEMPORAL_UI, countExecutions, execute, finished, orgContext, publish, useExecEnv, waitFor, type OrgContext } from './support';

/** start (manual, declared inputs) ──▶ log1 ──▶ … ──▶ log5, outputs built from the inputs. */
const chain = (key: string) => ({
  name: 'Chain',
  key,
  steps: {
    start: {
      type: 'trigger',
      pluginType: 'manual',
      config: { inputs: { name: { type: 'string', required: true }, count: { type: 'integer' } } },
    },
    ...Object.fromEntries(
      [1, 2, 3, 4, 5].map((n) => [
        `log${n}`,
        { type: 'module', pluginType: 'log', config: { message: `line ${n} for \${{ trigger.payload.name }}` } },
      ]),
    ),
  },
  connections: [{ from: 'start', to: 'log1' }, ...[1, 2, 3, 4].map((n) => ({ from: `log${n}`, to: `log${n + 1}` }))],
  outputs: { greeting: 'hello ${{ trigger.payload.name }}', count: '${{ trigger.payload.count }}' },
});

describe('executions API: execute, read, list, logs', function () {
  this.timeout(60_000);
  const { env, org } = useExecEnv({ org: 'each' });

  describe('runs an execution end to end: 202, worker completes it, outputs, steps and the Temporal link are readable', () => {
    // One run, read in several ways (each test picks up where the one before left off), in an organization of its own.
    const runOrg = late<OrgContext>('the run’s organization');
    const org = runOrg.value;
    before(async () => runOrg.set(await orgContext(env)));
    let workflowId: string;
    let res: Response;
    let done: Record<string, unknown>;
    let one: Response;

    it('answers 202 with the new execution’s id, its workflow, revision and alias, running', async () => {
      workflowId = await publish(env, org, chain('chain'));
      res = await org
        .auth(env.t.request.post('/workflows/definitions/chain/execute'))
        .send({ inputs: { name: 'Ada', count: 2 }, correlationKey: 'order:1' });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      assert.match(res.body.executionId, /^exec_[0-9a-f]{32}$/);
      assert.deepEqual(
        { ...res.body, executionId: undefined },
        { executionId: undefined, workflowId, revision: 1, alias: 'latest', status: 'running' },
      );
    });

    it('the worker completes it: outputs, inputs, workflow key, correlation key, trigger and end time are readable', async () => {
      done = await waitFor(env, org, res.body.executionId, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.outputs, { greeting: 'hello Ada', count: 2 });
      assert.deepEqual(done.inputs, { name: 'Ada', count: 2 });
      assert.equal(done.workflowKey, 'chain');
      assert.equal(done.correlationKey, 'order:1');
      assert.equal((done.trigger as { source: string }).source, 'manual');
      assert.equal(typeof done.completedAt, 'string');
    });

    it('links the run to Temporal: its workflow id, run id and UI URL', () => {
      const temporal = done.temporal as Record<string, string>;
      assert.equal(temporal.workflowId, res.body.executionId);
      assert.equal(typeof temporal.runId, 'string');
      assert.equal(temporal.uiUrl, `${TEMPORAL_UI}/namespaces/${temporal.namespace}/workflows/${res.body.executionId}/${temporal.runId}`);
    });

    it('lists its step records, reads one with its runs, and answers 404 for a step it does not have', async () => {
      const steps = await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/steps`)).expect(200);
      // Steps of one workflow task share a timestamp, so only the set is asserted, not the order.
      assert.deepEqual(
        steps.body.data.map((s: { stepId: string; status: string }) => `${s.stepId}:${s.status}`).sort(),
        ['log1', 'log2', 'log3', 'log4', 'log5', 'start'].map((s) => `${s}:completed`),
      );
      one = await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/steps/log3`)).expect(200);
      assert.equal(one.body.record.stepId, 'log3');
      assert.equal(one.body.runs.length, 1);
      assertDialect('problem', await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/steps/ghost`)), 404);
    });

    it('pages step records and a step’s runs like every list (a limit past 200 is 400)', async () => {
      const paged = async (query: string) =>
        (await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/steps${query}`)).expect(200)).body as {
          data: Array<{ stepId: string }>;
          page: number;
          limit: number;
          total: number;
        };
      const first = await paged('?limit=4');
      const second = await paged('?limit=4&page=2');
      assert.deepEqual([first.data.length, first.total, second.data.length, second.page], [4, 6, 2, 2]);
      assert.deepEqual([...first.data, ...second.data].map((s) => s.stepId).sort(), ['log1', 'log2', 'log3', 'log4', 'log5', 'start']);
      assert.deepEqual((({ page, limit, total }) => ({ page, limit, total }))(one.body), { page: 1, limit: 50, total: 1 });
      assertDialect('problem', await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/steps?limit=201`)), 400);
    });

    it('reads its state (ended, not live, every step) and no pending signals', async () => {
      const state = await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/state`)).expect(200);
      assert.equal(state.body.status, 'completed');
      assert.equal(state.body.live, false);
      assert.deepEqual(Object.keys(state.body.steps).sort(), ['log1', 'log2', 'log3', 'log4', 'log5', 'start']);
      assert.deepEqual(
        (await org.auth(env.t.request.get(`/workflows/executions/${res.body.executionId}/pending-signals`)).expect(200)).body,
        {
          data: [],
        },
      );
    });
  });

  describe('reads logs in windows, newest first, with and without stepId, paging until nextCursor is absent', () => {
    // One run's five log lines, read in several ways, in an organization of its own.
    const runOrg = late<OrgContext>('the run’s organization');
    const org = runOrg.value;
    let id: string;
    let url: string;
    before(async () => {
      runOrg.set(await orgContext(env));
      await publish(env, org, chain('logs'));
      id = await execute(env, org, 'logs', { inputs: { name: 'Bo' } });
      await waitFor(env, org, id, finished);
      url = `/workflows/executions/${id}/logs`;
    });

    it('reads every line, newest step last, with its entry’s fields, and no nextCursor', async () => {
      const all = await org.auth(env.t.request.get(url)).expect(200);
      assert.equal(all.body.total, 5);
      assert.equal(all.body.limit, 200);
      assert.equal('nextCursor' in all.body, false);
      assert.deepEqual(
        all.body.data.map((l: { message: string }) => l.message),
        [1, 2, 3, 4, 5].map((n) => `line ${n} for Bo`),
      );
      const entry = all.body.data[0];
      assert.deepEqual(Object.keys(entry).sort(), ['executionId', 'id', 'level', 'message', 'metadata', 'stepId', 'timestamp']);
      assert.equal(entry.executionId, id);
      assert.equal(entry.stepId, 'log1');
      assert.equal(entry.level, 'info');
    });

    it('pages newest first by cursor until nextCursor is absent', async () => {
      const seen: string[][] = [];
      let cursor: number | undefined;
      for (;;) {
        const page = await org.auth(env.t.request.get(url).query({ limit: 2, ...(cursor !== undefined ? { cursor } : {}) })).expect(200);
        assert.equal(page.body.total, 5);
        assert.equal(page.body.limit, 2);
        seen.push(page.body.data.map((l: { stepId: string }) => l.stepId));
        if (page.body.nextCursor === undefined) break;
        cursor = page.body.nextCursor;
      }
      assert.deepEqual(seen, [['log4', 'log5'], ['log2', 'log3'], ['log1']]);
    });

    it('reads one step’s lines with stepId (none for a step it does not have)', async () => {
      const byStep = await org.auth(env.t.request.get(url).query({ stepId: 'log3' })).expect(200);
      assert.deepEqual(
        { total: byStep.body.total, steps: byStep.body.data.map((l: { stepId: string }) => l.stepId) },
        { total: 1, steps: ['log3'] },
      );
      const noStep = await org.auth(env.t.request.get(url).query({ stepId: 'ghost' })).expect(200);
      assert.deepEqual(noStep.body, { data: [], total: 0, limit: 200 });
    });

    it('clamps the limit to 1000, and a cursor before the first line reads nothing', async () => {
      const clamped = await org.auth(env.t.request.get(url).query({ limit: 5000 })).expect(200);
      assert.equal(clamped.body.limit, 1000);
      assert.equal(clamped.body.data.length, 5);
      const past = await org.auth(env.t.request.get(url).query({ cursor: 0 })).expect(200);
      assert.deepEqual(past.body.data, []);
    });

    it('answers 400 to a bad limit or cursor, and 404 to another organization or an unknown execution', async () => {
      for (const query of [{ limit: 0 }, { limit: 'ten' }, { cursor: -1 }, { cursor: 1.5 }]) {
        assertDialect('problem', await org.auth(env.t.request.get(url).query(query)), 400);
      }
      assertDialect('problem', await org.otherAuth(env.t.request.get(url)), 404);
      assertDialect('problem', await org.auth(env.t.request.get('/workflows/executions/exec_ghost/logs')), 404);
    });
  });

  it('deduplicates by idempotencyKey: same execution, 200 with deduplicated, one row', async () => {
    await publish(env, org, chain('idem'));
    const first = await org
      .auth(env.t.request.post('/workflows/definitions/idem/execute'))
      .send({ inputs: { name: 'A' }, idempotencyKey: 'k-1' });
    assert.equal(first.status, 202, JSON.stringify(first.body));
    const again = await org
      .auth(env.t.request.post('/workflows/definitions/idem/execute'))
      .send({ inputs: { name: 'B' }, idempotencyKey: 'k-1' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.executionId, first.body.executionId);
    assert.equal(again.body.deduplicated, true);
    assert.equal(await countExecutions(env.db, org.id), 1);
    const other = await org
      .auth(env.t.request.post('/workflows/definitions/idem/execute'))
      .send({ inputs: { name: 'A' }, idempotencyKey: 'k-2' });
    assert.equal(other.status, 202);
    assert.notEqual(other.body.executionId, first.body.executionId);
    await waitFor(env, org, first.body.executionId, finished);
    await waitFor(env, org, other.body.executionId, finished);
  });

  it('rejects bad execute requests with problem+json and writes nothing', async () => {
    await publish(env, org, chain('strict'));
    const post = (ref: string) => org.auth(env.t.request.post(`/workflows/definitions/${ref}/execute`));
    const cases: Array<[string, Promise<import('supertest').Response>, number, string | undefined]> = [
      ['unknown workflow', post('ghost').send({ inputs: { name: 'a' } }), 404, 'workflow-not-found'],
      [
        'unknown alias (query)',
        post('strict')
          .query({ alias: 'prod' })
          .send({ inputs: { name: 'a' } }),
        404,
        'alias-not-found',
      ],
      ['unknown alias (body)', post('strict').send({ inputs: { name: 'a' }, alias: 'prod' }), 404, 'alias-not-found'],
      ['unknown revision', post('strict').send({ inputs: { name: 'a' }, revision: 9 }), 404, 'revision-not-found'],
      ['unknown body field', post('strict').send({ inputs: { name: 'a' }, extra: 1 }), 400, undefined],
      ['inputs not an object', post('strict').send({ inputs: [1] }), 400, undefined],
      ['bad idempotency key', post('strict').send({ inputs: { name: 'a' }, idempotencyKey: 5 }), 400, undefined],
      [
        'bad revision query',
        post('strict')
          .query({ revision: 'x' })
          .send({ inputs: { name: 'a' } }),
        400,
        undefined,
      ],
    ];
    for (const [label, response, status, type] of cases) {
      const res = await response;
      assertDialect('problem', res, status);
      if (type) assert.match(res.body.type, new RegExp(`/${type}$`), label);
    }
    const invalid = await post('strict').send({ inputs: { count: 1.5 } });
    assertDialect('problem', invalid, 400);
    assert.deepEqual(invalid.body.errors.map((e: { path: string }) => e.path).sort(), ['/inputs/count', '/inputs/name']);
    assert.equal((await env.t.request.post('/workflows/definitions/strict/execute').send({})).status, 401);
    assertDialect(
      'problem',
      await org.otherAuth(env.t.request.post('/workflows/definitions/strict/execute')).send({ inputs: { name: 'a' } }),
      404,
    );
    assert.equal(await countExecutions(env.db, org.id), 0);
  });

  /** The real app, except that Temporal's start fails with `error` (everything else about the app is real). */
  async function appWhoseStartFails(error: Error) {
    const failing = {
      options: { namespace: 'default' },
      connection: { withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn() },
      workflow: { start: () => Promise.reject(error) },
    } as unknown as Client;
    const deps = {
      config: { ...loadConfig(), temporalTaskQueue: env.taskQueue },
      dataSource: env.db,
      temporal: failing,
      encryptionKey: env.encryptionKey,
    };
    const app = createTestApp({ routes: [...workflowRoutes(deps), ...executionRoutes(deps)] });
    return { app, token: await app.token({ organizationId: org.id, userId: org.userId }) };
  }

  it('answers 503 when a start outlives its deadline, keeping the row so a retry with the key finds the same execution', async () => {
    await publish(env, org, chain('slow-start'));
    // Temporal did not answer in time: it may have the run, so the row stays for the start reconciler.
    const { app, token } = await appWhoseStartFails(Object.assign(new Error('deadline exceeded'), { code: 4 }));
    const send = () =>
      app.request
        .post('/workflows/definitions/slow-start/execute')
        .set('Authorization', `Bearer ${token}`)
        .send({ inputs: { name: 'a' }, idempotencyKey: 'maybe-started' });
    const res = await send();
    assertDialect('problem', res, 503);
    assert.match(res.body.detail, /same idempotencyKey/);
    assert.equal(await countExecutions(env.db, org.id), 1, 'the row stays');
    const again = await send();
    assert.equal(again.status, 200);
    assert.equal(again.body.deduplicated, true);
  });

  it('answers 503 executor-unavailable when Temporal refuses the start, leaving no row', async () => {
    await publish(env, org, chain('down'));
    const { app, token } = await appWhoseStartFails(new Error('connection refused'));
    const requestId = `refused-start-${org.id}`;
    const res = await app.request
      .post('/workflows/definitions/down/execute')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', requestId)
      .send({ inputs: { name: 'a' }, idempotencyKey: 'retry-me' });
    assertDialect('problem', res, 503);
    assert.match(res.body.type, /\/executor-unavailable$/);
    assert.equal(await countExecutions(env.db, org.id), 0);
    // The start's event stays, saying the start failed.
    const events = await env.db.query(`SELECT action, details FROM audit_events WHERE client_request_id = $1`, [requestId]);
    assert.deepEqual(
      events.map((e: { action: string; details: Record<string, unknown> }) => [e.action, e.details.outcome, e.details.idempotencyKey]),
      [['execution.start', 'failed', 'retry-me']],
    );
    // The key is free again: a retry against a working executor starts the execution.
    const retried = await org
      .auth(env.t.request.post('/workflows/definitions/down/execute'))
      .send({ inputs: { name: 'a' }, idempotencyKey: 'retry-me' });
    assert.equal(retried.status, 202);
    await waitFor(env, org, retried.body.executionId, finished);
  });

  it('gets and lists executions with filters, newest first, paged; other organizations see nothing', async () => {
    const wfA = await publish(env, org, chain('list-a'));
    await publish(env, org, chain('list-b'));
    const a1 = await execute(env, org, 'list-a', { inputs: { name: '1' }, correlationKey: 'ck-1' });
    const a2 = await execute(env, org, wfA, { inputs: { name: '2' } });
    const b1 = await execute(env, org, 'list-b', { inputs: { name: '3' } });
    for (const id of [a1, a2, b1]) await waitFor(env, org, id, finished);
    const list = (query: Record<string, unknown>) => org.auth(env.t.request.get('/workflows/executions').query(query));

    const everything = await list({}).expect(200);
    assert.deepEqual(
      everything.body.data.map((e: { id: string }) => e.id),
      [b1, a2, a1],
    );
    assert.deepEqual(
      { page: everything.body.page, limit: everything.body.limit, total: everything.body.total },
      { page: 1, limit: 50, total: 3 },
    );
    assert.deepEqual(
      (await list({ workflowId: 'list-a' })).body.data.map((e: { id: string }) => e.id),
      [a2, a1],
    );
    assert.deepEqual(
      (await list({ workflowId: wfA })).body.data.map((e: { id: string }) => e.id),
      [a2, a1],
    );
    assert.deepEqual(
      (await list({ correlationKey: 'ck-1' })).body.data.map((e: { id: string }) => e.id),
      [a1],
    );
    assert.equal((await list({ status: 'completed', alias: 'latest' })).body.total, 3);
    assert.equal((await list({ status: 'failed' })).body.total, 0);
    assert.equal((await list({ workflowId: 'ghost' })).body.total, 0);
    const paged = await list({ limit: 2, page: 2 }).expect(200);
    assert.deepEqual({ ids: paged.body.data.map((e: { id: string }) => e.id), total: paged.body.total }, { ids: [a1], total: 3 });
    assert.equal((await list({ from: new Date(Date.now() + 60_000).toISOString() })).body.total, 0);
    assert.equal((await list({ to: new Date(Date.now() + 60_000).toISOString() })).body.total, 3);

    for (const query of [{ status: 'sleeping' }, { limit: 0 }, { limit: 201 }, { page: 0 }, { from: 'yesterday' }])
      assertDialect('problem', await list(query), 400);
    assert.equal((await org.otherAuth(env.t.request.get('/workflows/executions'))).body.total, 0);
    assertDialect('problem', await org.otherAuth(env.t.request.get(`/workflows/executions/${a1}`)), 404);
    for (const path of ['', '/state', '/steps', '/steps/start', '/pending-signals']) {
      const res = await org.otherAuth(env.t.request.get(`/workflows/executions/${a1}${path}`));
      assertDialect('problem', res, 404);
      assert.match(res.body.type, /\/execution-not-found$/);
    }
    assert.equal((await env.t.request.get(`/workflows/executions/${a1}`)).status, 401);
  });

  it('runs the revision an alias (query or body) or an explicit revision names', async () => {
    await publish(env, org, chain('versions'));
    const v2 = { ...chain('versions'), outputs: { greeting: 'v2 ${{ trigger.payload.name }}' } };
    assert.equal((await org.auth(env.t.request.put('/workflows/definitions/versions')).send(v2)).status, 200);
    assert.equal((await org.auth(env.t.request.put('/workflows/definitions/versions/aliases/prod')).send({ revision: 1 })).status, 201);
    const run = async (query: Record<string, unknown>, body: Record<string, unknown>) => {
      const res = await org
        .auth(env.t.request.post('/workflows/definitions/versions/execute'))
        .query(query)
        .send({ inputs: { name: 'V' }, ...body });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const done = await waitFor(env, org, res.body.executionId, finished);
      return {
        revision: res.body.revision,
        alias: res.body.alias,
        greeting: (done.outputs as { greeting: string }).greeting,
        recorded: [done.revision, done.alias ?? null],
      };
    };
    assert.deepEqual(await run({}, {}), { revision: 2, alias: 'latest', greeting: 'v2 V', recorded: [2, 'latest'] });
    assert.deepEqual(await run({ alias: 'prod' }, {}), { revision: 1, alias: 'prod', greeting: 'hello V', recorded: [1, 'prod'] });
    assert.deepEqual(await run({}, { alias: 'prod' }), { revision: 1, alias: 'prod', greeting: 'hello V', recorded: [1, 'prod'] });
    assert.deepEqual(await run({ revision: 1 }, {}), { revision: 1, alias: null, greeting: 'hello V', recorded: [1, null] });
    assert.deepEqual(await run({ alias: 'prod' }, { revision: 2 }), { revision: 2, alias: null, greeting: 'v2 V', recorded: [2, null] });
  });
});
