/**
 * The light step's local activity on its own (Temporal's mock activity
 * environment, a real database): a completed call's result is stored and a
 * second run of the same call answers from it without calling; with a
 * database it cannot use, the call is still made and the batch is handed back
 * to the workflow (`batchWritten: false`) instead of failing the step. A call whose success ends the run
 * (`endsRun`, rule `end-with-last-light-step`) writes the step's last records and the end with its result,
 * once: made again (a worker lost before Temporal recorded it) it answers from the stored result and the end
 * written before, changing nothing.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { MockActivityEnvironment } from '@temporalio/testing';
import { createDataSource } from '../../db/data-source';
import { ExecutionEventRepository } from '../../db/repositories/execution-event-repository';
import type { ActivityCall } from '../../workflows/engine';
import type { LightStepOutcome, LightStepRequest } from '../../activities/execution-activity-types';
import { activitiesOn } from '../support/activities';
import { closeTestDataSource, recordExecution, testDataSource } from '../support/database';
import { useLocalServer } from '../support/local-server';

describe('light step activity', () => {
  after(closeTestDataSource);
  let calls = 0;
  const server = useLocalServer((_req, res) => {
    calls += 1;
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ call: calls }));
  });

  const call = (executionId: string): ActivityCall => ({
    executionId,
    organizationId: '1',
    workflowId: 'wf_1',
    stepId: 'fetch',
    pluginType: 'http-request',
    config: { url: `${server.base}/` },
    inputs: {},
    items: [{}],
    timeoutMs: 5000,
    light: { callKey: 'fetch#1' },
  });
  const batch = (executionId: string) => ({
    executionId,
    organizationId: '1',
    firstEventSeq: 0,
    events: [{ type: 'step.started' as const, stepId: 'fetch', run: 1, at: new Date().toISOString() }],
    logs: [],
  });
  /** One run of the light step activity as a local activity of workflow run `runId`. */
  const lightStep = (
    runId: string,
    activities: ReturnType<typeof activitiesOn>,
    request: LightStepRequest,
    attempt = 1,
  ): Promise<LightStepOutcome> =>
    new MockActivityEnvironment({ isLocal: true, attempt, workflowExecution: { workflowId: 'exec', runId } }).run<
      [LightStepRequest],
      LightStepOutcome,
      (r: LightStepRequest) => Promise<LightStepOutcome>
    >((r) => activities.callLightStep(r), request);

  it('answers a call made again from the result it stored', async () => {
    const activities = activitiesOn(await testDataSource());
    const runId = randomUUID();
    const executionId = `exec_${randomUUID().replace(/-/g, '')}`;
    calls = 0;
    // (A batch needs its execution's row: the end-to-end tests write batches with stored results.)
    const first = await lightStep(runId, activities, { call: call(executionId) });
    const again = await lightStep(runId, activities, { call: call(executionId) });
    assert.equal(calls, 1);
    assert.deepEqual([first.batchWritten, again.batchWritten], [true, true]);
    assert.deepEqual(again.result, first.result);
    // Another run (or another call key) is another call.
    await lightStep(randomUUID(), activities, { call: call(executionId) });
    assert.equal(calls, 2);
  });

  it("looks for no stored result on the first attempt of a call from the run's first workflow task, and does on any other", async () => {
    const activities = activitiesOn(await testDataSource());
    const runId = randomUUID();
    const executionId = `exec_${randomUUID().replace(/-/g, '')}`;
    calls = 0;
    await lightStep(runId, activities, { call: call(executionId), firstTask: true });
    // The same call on its first attempt in a first task again cannot happen (a lost task adds to the history): it
    // shows the read skipped. A retry, or the call scheduled in any later task, answers from the stored result.
    await lightStep(runId, activities, { call: call(executionId), firstTask: true });
    assert.equal(calls, 2);
    const retried = await lightStep(runId, activities, { call: call(executionId), firstTask: true }, 2);
    const later = await lightStep(runId, activities, { call: call(executionId) });
    assert.equal(calls, 2);
    assert.deepEqual(retried.result, later.result);
  });

  it("writes the step and the run's end with a call that ends the run, once, however often it is made", async () => {
    const db = await testDataSource();
    const activities = activitiesOn(db);
    const executionId = await recordExecution(db, { workflowId: 'wf_1' });
    const started = batch(executionId);
    const running = {
      stepId: 'fetch',
      status: 'running' as const,
      run: 1,
      items: [],
      outputs: {},
      activePorts: [],
      startedAt: started.events[0].at,
    };
    const request: LightStepRequest = {
      call: { ...call(executionId), endsRun: { record: running, run: 1 } },
      batch: started,
      end: { firstEventSeq: 1, logSeq: 0, stepSeq: 0 },
    };
    const read = async () => ({
      execution: (await db.query(`SELECT status, outputs, error FROM executions WHERE id = $1`, [executionId]))[0],
      steps: await db.query(`SELECT step_id, status FROM execution_steps WHERE execution_id = $1`, [executionId]),
      events: (await new ExecutionEventRepository(db.manager).after(executionId, -1)).map((event) => `${event.seq}:${event.type}`),
    });
    calls = 0;
    const runId = randomUUID();
    const first = await lightStep(runId, activities, request);
    assert.deepEqual([first.result.status, first.batchWritten, first.endWritten], ['success', true, true]);
    const written = await read();
    assert.deepEqual(written.execution, { status: 'completed', outputs: {}, error: null });
    assert.deepEqual(written.steps, [{ step_id: 'fetch', status: 'completed' }]);
    assert.deepEqual(written.events, ['0:step.started', '1:step.completed', '2:execution.completed']);
    // Made again on another worker: no second call, the same answer, nothing written twice.
    const again = await lightStep(runId, activities, request);
    assert.equal(calls, 1);
    assert.deepEqual([again.result, again.endWritten], [first.result, true]);
    assert.deepEqual(await read(), written);
  });

  it('makes the call and hands the batch back when the database cannot be used', async () => {
    const url = ((await testDataSource()).options as { url: string }).url;
    const gone = createDataSource(url);
    await gone.initialize();
    await gone.destroy();
    calls = 0;
    const executionId = `exec_${randomUUID().replace(/-/g, '')}`;
    const outcome = await lightStep(randomUUID(), activitiesOn(gone), {
      call: call(executionId),
      batch: batch(executionId),
    });
    assert.equal(calls, 1);
    assert.equal(outcome.result.status, 'success');
    assert.equal(outcome.batchWritten, false);
    // Nor is the end written: the workflow ends the run itself.
    const ending = await lightStep(randomUUID(), activitiesOn(gone), {
      call: {
        ...call(executionId),
        endsRun: { record: { stepId: 'fetch', status: 'running', run: 1, items: [], outputs: {}, activePorts: [] }, run: 1 },
      },
      batch: batch(executionId),
      end: { firstEventSeq: 1, logSeq: 0, stepSeq: 0 },
    });
    assert.deepEqual([ending.batchWritten, ending.endWritten], [false, undefined]);
  });
});
