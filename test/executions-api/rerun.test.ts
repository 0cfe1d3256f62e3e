/**
 * Re-run and retry from the failed step (issue 29):
 *
 *   start ─▶ count (http, counted) ─▶ remember (set-variable) ─▶ note (log) ─▶ flaky (http: 500 on the first call) ─▶ after (log)
 *
 * The first run fails at `flaky`; its retry reuses start, count and note (count's server is called once across
 * both runs, note's log line is written once), runs remember again (set-variable is pure: it rebuilds the
 * variable from count's reused outputs), then flaky and after, which read count's reused outputs. A re-run runs
 * every step again.
 */
import assert from 'node:assert/strict';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { newExecutionId, recordRun, sweepOnce } from '../../executions';
import { assertDialect } from '../support/dialects';
import { captureLogger } from '../support/logger';
import { grantRole } from '../support/grants';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: re-run and retry from the failed step', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    res.setHeader('content-type', 'application/json');
    if (path.startsWith('/flaky') && hits[path] === 1) {
      res.statusCode = 500;
      return void res.end(JSON.stringify({ error: 'first call fails' }));
    }
    if (path === '/big') return void res.end(JSON.stringify({ s: 'x'.repeat(800_000) }));
    res.end(JSON.stringify({ n: hits[path] }));
  });

  const definition = (key: string, suffix = '') => ({
    name: 'Retried',
    key,
    steps: [
      { id: 'start', type: 'trigger', pluginType: 'manual', config: {} },
      { id: 'count', type: 'module', pluginType: 'http-request', config: { url: `${server.base}/count${suffix}` }, dependsOn: ['start'] },
      {
        id: 'remember',
        type: 'module',
        pluginType: 'set-variable',
        config: { path: 'counted', value: '${{ steps.count.outputs.body.n }}' },
        dependsOn: ['count'],
      },
      { id: 'note', type: 'module', pluginType: 'log', config: { message: 'noted ${{ workflow.inputs.who }}' }, dependsOn: ['remember'] },
      { id: 'flaky', type: 'module', pluginType: 'http-request', config: { url: `${server.base}/flaky${suffix}` }, dependsOn: ['note'] },
      {
        id: 'after',
        type: 'module',
        pluginType: 'log',
        config: { message: 'after count ${{ steps.count.outputs.body.n }}' },
        dependsOn: ['flaky'],
      },
    ],
    outputs: {
      count: '${{ steps.count.outputs.body.n }}',
      counted: '${{ variables.counted }}',
      flaky: '${{ steps.flaky.outputs.body.n }}',
      who: '${{ workflow.inputs.who }}',
    },
  });

  const logsOf = async (id: string): Promise<string[]> => {
    const res = await org.auth(env.t.request.get(`/workflows/executions/${id}/logs?limit=100`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return (res.body.data as Array<{ message: string }>).map((entry) => entry.message);
  };

  // Retry, then re-run: one scenario in steps (each test picks up where the one before left off).
  let first: string;
  let retry: string;
  let done: Record<string, unknown>;
  let rerun: Record<string, unknown>;

  it('retry: the first run fails at the flaky step, having called count and flaky once', async () => {
    for (const key of Object.keys(hits)) delete hits[key];
    await publish(env, org, definition('retried'));
    first = await execute(env, org, 'retried', { inputs: { who: 'ada' } });
    const failed = await waitFor(env, org, first, finished);
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
    assert.equal((failed.error as { stepId?: string }).stepId, 'flaky');
    assert.deepEqual(hits, { '/count': 1, '/flaky': 1 });
  });

  it('retry: a retry is a new execution of the same revision, of the same inputs, that completes', async () => {
    const started = Date.now();
    const res = await org.auth(env.t.request.post(`/workflows/executions/${first}/retry`));
    assert.equal(res.status, 202, JSON.stringify(res.body));
    assert.equal(res.body.status, 'running');
    assert.equal(res.body.revision, 1);
    retry = res.body.executionId as string;
    assert.notEqual(retry, first);
    done = await waitFor(env, org, retry, finished);
    console.log(`      retry ran in ${Date.now() - started} ms`);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.rerunOf, first);
    assert.equal(done.rerunKind, 'retry');
    assert.deepEqual(done.inputs, { who: 'ada' });
  });

  it('retry: the retry reads count’s reused outputs (remember’s variable among them) without calling count again', () => {
    assert.deepEqual(done.outputs, { count: 1, counted: 1, flaky: 2, who: 'ada' });
    assert.deepEqual(hits, { '/count': 1, '/flaky': 2 });
  });

  it('retry: a reused step’s log line is not written again; a step that ran writes its own', async () => {
    // note's log line was written by the first run only; after's by the retry.
    assert.deepEqual(
      (await logsOf(first)).filter((m) => m.startsWith('noted')),
      ['noted ada'],
    );
    const retryLogs = await logsOf(retry);
    assert.ok(!retryLogs.some((m) => m.startsWith('noted')), JSON.stringify(retryLogs));
    assert.ok(retryLogs.includes('after count 1'), JSON.stringify(retryLogs));
  });

  it('retry: the reused steps say where their record comes from; the steps that ran do not', async () => {
    const steps = await org.auth(env.t.request.get(`/workflows/executions/${retry}/steps`)).expect(200);
    const byId = Object.fromEntries((steps.body.data as Array<{ stepId: string; reusedFrom?: string }>).map((s) => [s.stepId, s]));
    for (const id of ['start', 'count', 'note']) assert.equal(byId[id].reusedFrom, first, id);
    for (const id of ['remember', 'flaky', 'after']) assert.equal(byId[id].reusedFrom, undefined, id);
    const count = await org.auth(env.t.request.get(`/workflows/executions/${retry}/steps/count`)).expect(200);
    assert.equal((count.body.record as { outputs: { body: { n: number } } }).outputs.body.n, 1);
  });

  it('re-run: a re-run of the first is a new execution of the same revision and inputs that runs every step again', async () => {
    const again = await org.auth(env.t.request.post(`/workflows/executions/${first}/rerun`));
    assert.equal(again.status, 202, JSON.stringify(again.body));
    rerun = await waitFor(env, org, again.body.executionId as string, finished);
    assert.equal(rerun.status, 'completed', JSON.stringify(rerun));
    assert.equal(rerun.rerunOf, first);
    assert.equal(rerun.rerunKind, 'rerun');
    assert.equal(rerun.revision, 1);
    assert.deepEqual(rerun.inputs, { who: 'ada' });
    assert.deepEqual(rerun.outputs, { count: 2, counted: 2, flaky: 3, who: 'ada' });
    assert.deepEqual(hits, { '/count': 2, '/flaky': 3 });
    assert.ok((await logsOf(rerun.id as string)).includes('noted ada'));
  });

  it('re-run: lists the first’s re-runs and retries, newest first', async () => {
    const runs = await org.auth(env.t.request.get(`/workflows/executions?rerunOf=${first}`)).expect(200);
    assert.deepEqual(
      (runs.body.data as Array<{ id: string; rerunKind: string }>).map((r) => [r.id, r.rerunKind]),
      [
        [rerun.id, 'rerun'],
        [retry, 'retry'],
      ],
    );
  });

  it('starts a retry whose start was lost through the start reconciler, reusing the same steps', async () => {
    await publish(env, org, definition('retried-lost', '-lost'));
    const first = await execute(env, org, 'retried-lost', { inputs: { who: 'bo' } });
    assert.equal((await waitFor(env, org, first, finished)).status, 'failed');
    const original = (await new ExecutionRepository(env.db.manager).findInOrganization(org.id, first))!;
    const runnable = await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, 'retried-lost', { revision: 1 });
    assert.ok(typeof runnable !== 'string');
    // Recorded as the retry route records it, then "crashed" before the Temporal start.
    const { row } = await recordRun(env.db, {
      id: newExecutionId(),
      organizationId: org.id,
      runnable,
      inputs: original.inputs,
      trigger: original.trigger,
      createdBy: org.userId,
      temporalNamespace: env.temporal.client.options.namespace,
      settings: { limits: env.limits },
      rerun: { of: first, kind: 'retry' },
    });
    const swept = await sweepOnce(
      {
        dataSource: env.db,
        temporal: env.temporal.client,
        taskQueue: env.taskQueue,
        publicBaseUrl: 'http://api.test',
        limits: env.limits,
        logger: captureLogger().logger,
      },
      { graceMs: 0, organizationId: org.id },
    );
    assert.deepEqual(swept.started, [row.id]);
    const done = await waitFor(env, org, row.id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { count: 1, counted: 1, flaky: 2, who: 'bo' });
    assert.equal(hits['/count-lost'], 1);
  });

  it('re-runs the revision the first ran, not the one its alias names now', async () => {
    await publish(env, org, {
      name: 'Versioned',
      key: 'versioned',
      steps: [{ id: 'start', type: 'trigger', pluginType: 'manual', config: {} }],
      outputs: { v: 1 },
    });
    const first = await execute(env, org, 'versioned', { inputs: { n: 7 } });
    assert.equal((await waitFor(env, org, first, finished)).status, 'completed');
    const put = await org.auth(env.t.request.put('/workflows/definitions/versioned')).send({
      name: 'Versioned',
      key: 'versioned',
      steps: [{ id: 'start', type: 'trigger', pluginType: 'manual', config: {} }],
      outputs: { v: 2 },
    });
    assert.ok(put.status < 300, JSON.stringify(put.body));
    const res = await org.auth(env.t.request.post(`/workflows/executions/${first}/rerun`)).expect(202);
    assert.equal(res.body.revision, 1);
    const done = await waitFor(env, org, res.body.executionId as string, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { v: 1 });
    assert.deepEqual(done.inputs, { n: 7 });
    assert.equal(done.rerunOf, first);
  });

  it('answers 409 to a retry of a run that did not fail, 403 without execute, 404 for an unknown or unreachable one', async () => {
    await publish(env, org, {
      name: 'Waits',
      key: 'waits-for-retry',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual', config: {} },
        { id: 'hold', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] },
      ],
    });
    const waiting = await execute(env, org, 'waits-for-retry');
    await waitFor(env, org, waiting, (body) => body.status === 'waiting');
    const busy = await org.auth(env.t.request.post(`/workflows/executions/${waiting}/retry`));
    assertDialect('problem', busy, 409);
    assert.match(String(busy.body.detail ?? busy.body.title), /waiting|failed/, JSON.stringify(busy.body));

    await publish(env, org, {
      name: 'Done',
      key: 'done-once',
      steps: [{ id: 'start', type: 'trigger', pluginType: 'manual', config: {} }],
    });
    const completed = await execute(env, org, 'done-once');
    assert.equal((await waitFor(env, org, completed, finished)).status, 'completed');
    const notFailed = await org.auth(env.t.request.post(`/workflows/executions/${completed}/retry`));
    assertDialect('problem', notFailed, 409);
    assert.match(JSON.stringify(notFailed.body), /only a failed execution can be retried/);

    // Reused outputs over what a Temporal input takes: refused, nothing started.
    await publish(env, org, {
      name: 'Big',
      key: 'big-outputs',
      steps: [
        { id: 'start', type: 'trigger', pluginType: 'manual', config: {} },
        { id: 'one', type: 'module', pluginType: 'http-request', config: { url: `${server.base}/big` }, dependsOn: ['start'] },
        { id: 'two', type: 'module', pluginType: 'http-request', config: { url: `${server.base}/big` }, dependsOn: ['one'] },
        { id: 'stop', type: 'module', pluginType: 'fail', config: { message: 'stop here' }, dependsOn: ['two'] },
      ],
    });
    const big = await execute(env, org, 'big-outputs');
    assert.equal((await waitFor(env, org, big, finished)).status, 'failed');
    const tooLarge = await org.auth(env.t.request.post(`/workflows/executions/${big}/retry`));
    assertDialect('problem', tooLarge, 409);
    assert.match(JSON.stringify(tooLarge.body), /retry-too-large/);
    const bigList = await org.auth(env.t.request.get('/workflows/executions?workflowId=big-outputs')).expect(200);
    assert.equal(bigList.body.total, 1);

    const { userId } = await grantRole(env.db, org.id, 'viewer');
    const viewer = await env.t.token({ organizationId: org.id, userId });
    const asViewer = (req: ReturnType<typeof env.t.request.post>) => req.set('Authorization', `Bearer ${viewer}`);
    assertDialect('problem', await asViewer(env.t.request.post(`/workflows/executions/${completed}/rerun`)), 403);
    assertDialect('problem', await asViewer(env.t.request.post(`/workflows/executions/${completed}/retry`)), 403);
    assertDialect('problem', await org.otherAuth(env.t.request.post(`/workflows/executions/${completed}/rerun`)), 404);
    assertDialect('problem', await org.auth(env.t.request.post('/workflows/executions/exec_nope/rerun')), 404);
    assertDialect('problem', await org.auth(env.t.request.post('/workflows/executions/exec_nope/retry')), 404);
    // Nothing was started by the refused calls: the only executions are the two above.
    const list = await org.auth(env.t.request.get('/workflows/executions?workflowId=done-once')).expect(200);
    assert.equal(list.body.total, 1);
    await org.auth(env.t.request.post(`/workflows/executions/${waiting}/signals/go`)).send({});
  });
});
