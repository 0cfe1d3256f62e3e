/**
 * Engine rule `end-with-last-light-step` on real Temporal and PostgreSQL: a run whose last step is a light
 * http-request and which declares no outputs ends with that step's local activity (one local activity marker,
 * no finish of its own), and what it recorded reads the same as a run ended by the finish activity (the same
 * definition with an output declared); a last light step that fails, or completes only on a retry, ends the run
 * by the finish activity as before; and a run ended this way hands its concurrency slot on. Every history
 * replays (useExecEnv).
 */
import assert from 'node:assert/strict';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import { chain, step, trigger } from '../support/definitions';
import { keepHistoryFixture } from '../support/history-fixture';
import { useLocalServer } from '../support/local-server';
import { execute, finished, publish, useExecEnv, waitFor, type ExecEnv } from './support';

type Body = Record<string, unknown>;

/** The local activity markers Temporal recorded for one closed run. */
async function localMarkers(env: ExecEnv, executionId: string): Promise<number> {
  const handle = env.temporal.client.workflow.getHandle(executionId);
  await handle.result().catch(() => undefined);
  const events = (await handle.fetchHistory()).events ?? [];
  return events.filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity').length;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** A read with its times, ids and durations blanked: what two runs of one definition share. */
function shape(value: unknown, ids: string[]): unknown {
  if (typeof value === 'string') return ISO.test(value) ? 'T' : ids.reduce((text, id, i) => text.split(id).join(`ID${i}`), value);
  if (Array.isArray(value)) return value.map((item) => shape(item, ids));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Body)
      .filter(([key]) => !/duration|elapsed|workflowId|definitionId|revisionId|runId|uiUrl|workflowKey|^date$/i.test(key))
      .map(([key, item]) => [key, shape(item, ids)]),
  );
}

describe('executions API: the last light step writes the end', function () {
  this.timeout(120_000);
  const { env, org } = useExecEnv();
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    if (path.startsWith('/flaky')) res.statusCode = hits[path] < 2 ? 503 : 200;
    if (path.startsWith('/missing')) res.statusCode = 404;
    res.setHeader('content-type', 'application/json');
    const delay = path.startsWith('/held') ? 1500 : 0;
    setTimeout(() => res.end(JSON.stringify({ path: path.replace(/\?.*/, '') })), delay);
  });
  const call = (id: string, path: string, extra: Record<string, unknown> = {}) =>
    step(id, 'http-request', { url: `${server.base}${path}` }, extra);

  /** Everything a client reads of a finished run, and the end event. */
  async function reads(id: string): Promise<Body> {
    const get = async (path: string) => {
      const res = await org.auth(env.t.request.get(`/workflows/executions/${id}${path}`));
      assert.equal(res.status, 200, `${path}: ${JSON.stringify(res.body)}`);
      return res.body as Body;
    };
    const events = (await new ExecutionEventRepository(env.db.manager).after(id, -1)).map(({ seq, type, data }) => ({ seq, type, data }));
    const { outputs: _outputs, ...execution } = await get('');
    const { outputs: _stateOutputs, ...state } = await get('/state');
    return { execution, state, steps: await get('/steps?limit=100'), logs: await get('/logs'), events };
  }

  it('ends a one-step run with the step: one local activity, the same records as the finish activity writes', async () => {
    const steps = chain(trigger(), call('fetch', '/one'));
    const byStep = await publish(env, org, { name: 'One step', key: 'one-step', steps });
    const byFinish = await publish(env, org, { name: 'One step', key: 'one-step-out', steps, outputs: { fixed: 'yes' } });
    const endedByStep = await execute(env, org, byStep);
    const endedByFinish = await execute(env, org, byFinish);
    const [stepDone, finishDone] = [await waitFor(env, org, endedByStep, finished), await waitFor(env, org, endedByFinish, finished)];
    assert.deepEqual([stepDone.status, stepDone.outputs], ['completed', {}]);
    assert.deepEqual([finishDone.status, finishDone.outputs], ['completed', { fixed: 'yes' }]);
    // The step's local activity only, where the run ended by the finish activity has two.
    assert.equal(await localMarkers(env, endedByStep), 1);
    assert.equal(await localMarkers(env, endedByFinish), 2);
    assert.equal(await env.temporal.client.workflow.getHandle(endedByStep).result().then(JSON.stringify), '{}');

    const [read, before] = [await reads(endedByStep), await reads(endedByFinish)];
    assert.deepEqual(
      (read.events as Array<{ seq: number; type: string }>).map((event) => `${event.seq}:${event.type}`),
      ['0:step.started', '1:step.completed', '2:step.started', '3:step.completed', '4:execution.completed'],
    );
    assert.deepEqual(shape(read, [endedByStep, byStep]), shape(before, [endedByFinish, byFinish]));
    // RECORD_HISTORIES=1: keep this run's history as a fixture of rules 5.
    await keepHistoryFixture(env.temporal.client.workflow.getHandle(endedByStep), 'rules5-last-step-end');
    const fetched = ((read.steps as Body).data as Array<{ stepId: string; status: string; outputs: Body }>).find(
      (s) => s.stepId === 'fetch',
    );
    assert.equal(fetched?.status, 'completed');
  });

  it('ends the run by the finish activity when the last light step fails, or completes on a retry', async () => {
    const failing = await publish(env, org, { name: 'Failing', key: 'failing-last', steps: chain(trigger(), call('bad', '/missing/x')) });
    const failed = await execute(env, org, failing);
    const failedDone = await waitFor(env, org, failed, finished);
    assert.equal(failedDone.status, 'failed');
    // The step's, the rewrite of the records it carried, and the finish.
    assert.equal(await localMarkers(env, failed), 3);
    const failedEvents = (await reads(failed)).events as Array<{ type: string }>;
    assert.equal(failedEvents.at(-1)?.type, 'execution.failed');

    const retried = await publish(env, org, {
      name: 'Flaky',
      key: 'flaky-last',
      steps: chain(
        trigger(),
        call('flaky', '/flaky/last', {
          errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '50ms', backoffStrategy: 'fixed' } },
        }),
      ),
    });
    const id = await execute(env, org, retried);
    assert.equal((await waitFor(env, org, id, finished)).status, 'completed');
    assert.equal(hits['/flaky/last'], 2);
    // Its record lists the attempts (the workflow's to write): the finish activity wrote the end.
    assert.equal(await localMarkers(env, id), 2);
    const record = await org.auth(env.t.request.get(`/workflows/executions/${id}/steps/flaky`));
    assert.equal((record.body.record as Body).attempts && ((record.body.record as Body).attempts as unknown[]).length, 2);
  });

  it('completes a run whose last call ended it while a cancel was on its way, in the database as in Temporal', async () => {
    const workflowId = await publish(env, org, { name: 'Held', key: 'held-last', steps: chain(trigger(), call('held', '/held/last')) });
    const id = await execute(env, org, workflowId);
    // The call is in flight (it answers after 1.5 s): the cancel reaches the run once it returned and wrote the end.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const res = await org.auth(env.t.request.post(`/workflows/executions/${id}/cancel`)).send({ reason: 'late' });
    assert.ok([200, 202, 409].includes(res.status), JSON.stringify(res.body));
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    // Temporal completed it too (a cancel that came in while the step's workflow task ran fails that task; its
    // retry sees the cancel first, and the finish answers that the run had ended completed).
    assert.deepEqual(await env.temporal.client.workflow.getHandle(id).result(), {});
  });

  it('hands the concurrency slot of a run it ended to the next queued run', async () => {
    const workflowId = await publish(env, org, {
      name: 'Gated call',
      key: 'gated-call',
      steps: chain(trigger(), call('fetch', '/gated')),
      concurrency: { key: 'one', limit: 1 },
    });
    const ids: string[] = [];
    for (let n = 0; n < 4; n += 1) ids.push(await execute(env, org, workflowId));
    // No flow sweep runs here: each run is started by the end of the one before it.
    for (const id of ids) {
      const done = await waitFor(env, org, id, (body) => body.status !== 'queued' && finished(body), '', 30_000);
      assert.equal(done.status, 'completed', JSON.stringify(done));
    }
    assert.equal(hits['/gated'], 4);
    assert.equal(await localMarkers(env, ids[3]), 1);
  });
});
