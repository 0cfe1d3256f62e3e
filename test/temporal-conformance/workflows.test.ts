import assert from 'node:assert/strict';
import {
  ServiceError,
  TimeoutFailure,
  WithStartWorkflowOperation,
  WorkflowFailedError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { defineSearchAttributeKey } from '@temporalio/common';
import { eventually, historiesOf, newProbe, replayFailures, uniqueQueue, useTemporalEnv } from './harness';
import * as wf from './workflows';

describe('temporal conformance: workflows', function () {
  this.timeout(60_000);
  const queue = uniqueQueue('wfs');
  const probe = newProbe();
  let n = 0;
  const id = (name: string): string => `${name}-${queue}-${++n}`;

  // The real dev server registers no custom search attributes up front: the test asks for the two it uses.
  const env = useTemporalEnv('local', {
    searchAttributes: [defineSearchAttributeKey('CustomKeywordField', 'KEYWORD'), defineSearchAttributeKey('CustomIntField', 'INT')],
    worker: { queue, probe },
  });

  it('fires timers and cancels them', async () => {
    const started = Date.now();
    assert.equal(await env.client.workflow.execute(wf.sleeper, { taskQueue: queue, workflowId: id('sleeper'), args: [300] }), 'woke');
    assert.ok(Date.now() - started >= 300);
    assert.equal(await env.client.workflow.execute(wf.timerCancel, { taskQueue: queue, workflowId: id('timerCancel') }), 'timer cancelled');
  });

  it('delivers signals, answers queries, and accepts or rejects updates', async () => {
    const handle = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId: id('collector') });
    await handle.signal(wf.addSignal, 'a');
    await handle.signal(wf.addSignal, 'b');
    assert.deepEqual(await handle.query(wf.itemsQuery), ['a', 'b']);
    assert.equal(await handle.executeUpdate(wf.addUpdate, { args: ['c'] }), 3);
    const lengthBefore = (await handle.describe()).historyLength;
    await assert.rejects(handle.executeUpdate(wf.addUpdate, { args: [''] }), (error: unknown) => {
      assert.ok(error instanceof WorkflowUpdateFailedError);
      assert.match(String(error.cause?.message), /empty item rejected/);
      return true;
    });
    // a rejected update leaves no trace in history (its workflow task was speculative)
    assert.equal((await handle.describe()).historyLength, lengthBefore);
    const updateHandle = await handle.startUpdate(wf.addUpdate, { args: ['d'], waitForStage: 'ACCEPTED' });
    assert.equal(await updateHandle.result(), 4);
    assert.equal(await handle.getUpdateHandle(updateHandle.updateId).result(), 4);
    await handle.signal(wf.doneSignal);
    assert.deepEqual(await handle.result(), ['a', 'b', 'c', 'd']);
    // queries still work on a closed workflow
    assert.deepEqual(await handle.query(wf.itemsQuery), ['a', 'b', 'c', 'd']);
  });

  it('answers queries on an idle workflow the worker has cached (direct query tasks)', async () => {
    const handle = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId: id('idlequery') });
    await handle.signal(wf.addSignal, 'x');
    // The signal is in the history now, and it schedules a workflow task unless one is pending: once none is,
    // the signal was processed and the worker holds the workflow idle. (A slow first task may take the signal
    // along, so the history can be 5 events long as well as 8.)
    for (;;) {
      const description = await handle.describe();
      if (description.historyLength >= 5 && description.raw.pendingWorkflowTask == null) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (let i = 0; i < 3; i++) assert.deepEqual(await handle.query(wf.itemsQuery), ['x']);
    await handle.signal(wf.addSignal, 'y');
    assert.deepEqual(await handle.query(wf.itemsQuery), ['x', 'y']);
    await handle.signal(wf.doneSignal);
    await handle.result();
  });

  it('takes a burst of concurrent signals and updates while workflow tasks are in flight', async () => {
    const handle = await env.client.workflow.start(wf.counter, { taskQueue: queue, workflowId: id('burst'), args: [230] });
    const signals = Array.from({ length: 200 }, (_, i) => handle.signal(wf.addSignal, String(i)));
    const updates = Array.from({ length: 30 }, (_, i) => handle.executeUpdate(wf.addUpdate, { args: [String(i)] }));
    await Promise.all(signals);
    const counts = await Promise.all(updates);
    assert.equal(new Set(counts).size, 30);
    assert.equal(await handle.result(), 230);
  });

  it('buffers signals sent before the handler exists', async () => {
    const handle = await env.client.workflow.start(wf.lateHandler, { taskQueue: queue, workflowId: id('late') });
    await handle.signal(wf.addSignal, 'early-1');
    await handle.signal(wf.addSignal, 'early-2');
    assert.deepEqual(await handle.result(), ['early-1', 'early-2']);
  });

  it('signal-with-start starts then signals the running workflow', async () => {
    const workflowId = id('sws');
    const first = await env.client.workflow.signalWithStart(wf.collector, {
      taskQueue: queue,
      workflowId,
      signal: wf.addSignal,
      signalArgs: ['x'],
    });
    const second = await env.client.workflow.signalWithStart(wf.collector, {
      taskQueue: queue,
      workflowId,
      signal: wf.addSignal,
      signalArgs: ['y'],
    });
    assert.equal(first.signaledRunId, second.signaledRunId);
    await first.signal(wf.doneSignal);
    assert.deepEqual(await first.result(), ['x', 'y']);
  });

  it('runs child workflows and reports their results and failures to the parent', async () => {
    assert.deepEqual(await env.client.workflow.execute(wf.parent, { taskQueue: queue, workflowId: id('parent'), args: ['v'] }), [
      'child:v',
      'child:v2',
      'child failed',
    ]);
  });

  it('fails a child start whose workflow id is taken', async () => {
    const taken = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId: id('taken') });
    assert.equal(
      await env.client.workflow.execute(wf.childIdConflict, { taskQueue: queue, workflowId: id('conflict'), args: [taken.workflowId] }),
      'already started',
    );
    await taken.signal(wf.doneSignal);
    await taken.result();
  });

  it('applies parent close policies to children', async () => {
    const workflowId = id('pcp');
    assert.equal(await env.client.workflow.execute(wf.parentClosePolicies, { taskQueue: queue, workflowId }), 'parent done');
    const status = async (suffix: string): Promise<string> =>
      (await env.client.workflow.getHandle(`${workflowId}-${suffix}`).describe()).status.name;
    await eventually(async () => {
      assert.equal(await status('abandoned'), 'RUNNING');
      assert.equal(await status('cancelled'), 'CANCELLED');
      assert.equal(await status('terminated'), 'TERMINATED');
    });
    await env.client.workflow.getHandle(`${workflowId}-abandoned`).signal(wf.doneSignal);
  });

  it('times out one condition and satisfies another; delays a start', async () => {
    const handle = await env.client.workflow.start(wf.conditionTimeout, { taskQueue: queue, workflowId: id('condition') });
    // signal only once the first condition's 50 ms timer has fired
    while (!(await handle.fetchHistory()).events?.some((event) => event.timerFiredEventAttributes)) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await handle.signal(wf.doneSignal);
    assert.deepEqual(await handle.result(), ['false', 'true']);

    const started = Date.now();
    const delayed = await env.client.workflow.start(wf.sleeper, {
      taskQueue: queue,
      workflowId: id('delayed'),
      args: [1],
      startDelay: '500ms',
    });
    await delayed.signal(wf.addSignal, 'ignored during the delay');
    assert.equal(await delayed.result(), 'woke');
    assert.ok(Date.now() - started >= 500);
    const history = await delayed.fetchHistory();
    const startedEvent = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    assert.ok(startedEvent?.firstWorkflowTaskBackoff);
  });

  it('retries local activities on the worker', async () => {
    assert.equal(
      await env.client.workflow.execute(wf.retryingLocalActivity, { taskQueue: queue, workflowId: id('lar'), args: ['local-retry'] }),
      'ok after 3',
    );
    assert.equal(probe.attempts['local-retry'], 3);
  });

  it('signals another workflow from a workflow', async () => {
    const target = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId: id('target') });
    assert.equal(
      await env.client.workflow.execute(wf.signalExternal, { taskQueue: queue, workflowId: id('sender'), args: [target.workflowId] }),
      'signalled',
    );
    assert.deepEqual(await target.result(), ['from-workflow']);
  });

  it('continues as new', async () => {
    const handle = await env.client.workflow.start(wf.continuer, { taskQueue: queue, workflowId: id('can'), args: [3, 0] });
    assert.equal(await handle.result(), 6);
    const description = await env.client.workflow.getHandle(handle.workflowId).describe();
    assert.notEqual(description.runId, handle.firstExecutionRunId);
    assert.equal(description.status.name, 'COMPLETED');
  });

  it('cancels a workflow (which cleans up) and terminates another', async () => {
    const cancelled = await env.client.workflow.start(wf.waitForever, { taskQueue: queue, workflowId: id('cancel') });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await cancelled.cancel();
    await assert.rejects(
      cancelled.result(),
      (error: unknown) => error instanceof WorkflowFailedError && /cancel/i.test(String(error.cause?.message)),
    );
    assert.equal((await cancelled.describe()).status.name, 'CANCELLED');

    const terminated = await env.client.workflow.start(wf.waitForever, { taskQueue: queue, workflowId: id('terminate') });
    await terminated.terminate('enough');
    await assert.rejects(
      terminated.result(),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause?.message === 'enough',
    );
    assert.equal((await terminated.describe()).status.name, 'TERMINATED');
  });

  it('reports workflow failures', async () => {
    await assert.rejects(env.client.workflow.execute(wf.failWorkflow, { taskQueue: queue, workflowId: id('fail') }), (error: unknown) => {
      return error instanceof WorkflowFailedError && error.cause?.message === 'workflow failed on purpose';
    });
  });

  it('applies id conflict and reuse policies and request-id idempotency', async () => {
    const workflowId = id('policy');
    const handle = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId });
    await assert.rejects(env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId }), WorkflowExecutionAlreadyStartedError);
    const existing = await env.client.workflow.start(wf.collector, {
      taskQueue: queue,
      workflowId,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    assert.equal(existing.firstExecutionRunId, handle.firstExecutionRunId);
    await handle.signal(wf.doneSignal);
    await handle.result();
    await assert.rejects(
      env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId, workflowIdReusePolicy: 'REJECT_DUPLICATE' }),
      WorkflowExecutionAlreadyStartedError,
    );
    await assert.rejects(
      env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId, workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY' }),
      WorkflowExecutionAlreadyStartedError,
    );
    const again = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId });
    assert.notEqual(again.firstExecutionRunId, handle.firstExecutionRunId);
    const replaced = await env.client.workflow.start(wf.collector, {
      taskQueue: queue,
      workflowId,
      workflowIdConflictPolicy: 'TERMINATE_EXISTING',
    });
    assert.equal((await env.client.workflow.getHandle(workflowId, again.firstExecutionRunId).describe()).status.name, 'TERMINATED');
    await replaced.terminate();
  });

  it('upserts search attributes and memo, and lists and counts workflows', async () => {
    const workflowId = id('sa');
    await env.client.workflow.execute(wf.searchAndMemo, { taskQueue: queue, workflowId, memo: { note: 'initial' } });
    const description = await env.client.workflow.getHandle(workflowId).describe();
    assert.deepEqual(description.memo, { note: 'memo-updated' });
    assert.deepEqual(description.searchAttributes.CustomKeywordField, ['updated']);

    await assert.rejects(
      env.client.workflow.start(wf.searchAndMemo, {
        taskQueue: queue,
        workflowId: id('badsa'),
        searchAttributes: { NotRegisteredAnywhere: ['x'] },
      }),
      (error: unknown) => error instanceof ServiceError && /NotRegisteredAnywhere/.test(String(error.cause)),
    );
    await assert.rejects(
      env.client.workflow.start(wf.searchAndMemo, {
        taskQueue: queue,
        workflowId: id('badsa'),
        searchAttributes: { CustomIntField: ['not a number'] },
      }),
      (error: unknown) => error instanceof ServiceError && /CustomIntField/.test(String(error.cause)),
    );
    await eventually(async () => {
      const ids: string[] = [];
      for await (const info of env.client.workflow.list({ query: `WorkflowId = '${workflowId}'` })) ids.push(info.workflowId);
      assert.deepEqual(ids, [workflowId]);
      const byType: string[] = [];
      for await (const info of env.client.workflow.list({
        query: `WorkflowType = 'continuer' AND TaskQueue = '${queue}' AND ExecutionStatus = 'ContinuedAsNew'`,
      }))
        byType.push(info.runId);
      assert.equal(byType.length, 3);
      const count = await env.client.workflow.count(
        `TaskQueue = '${queue}' AND ExecutionStatus = 'Completed' AND WorkflowType = 'continuer'`,
      );
      assert.equal(count.count, 1);
      const grouped = await env.client.workflow.count(`TaskQueue = '${queue}' GROUP BY ExecutionStatus`);
      assert.ok(
        grouped.groups.some((group) => String(group.groupValues[0]) === 'Terminated' && group.count >= 1),
        JSON.stringify(grouped),
      );
    });
  });

  it('runs update-with-start', async () => {
    const workflowId = id('uws');
    const startOp = new WithStartWorkflowOperation(wf.collector, {
      taskQueue: queue,
      workflowId,
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    assert.equal(await env.client.workflow.executeUpdateWithStart(wf.addUpdate, { args: ['first'], startWorkflowOperation: startOp }), 1);
    const handle = await startOp.workflowHandle();
    const again = new WithStartWorkflowOperation(wf.collector, { taskQueue: queue, workflowId, workflowIdConflictPolicy: 'USE_EXISTING' });
    assert.equal(await env.client.workflow.executeUpdateWithStart(wf.addUpdate, { args: ['second'], startWorkflowOperation: again }), 2);
    assert.equal((await (await again.workflowHandle()).describe()).runId, (await handle.describe()).runId);
    const failing = new WithStartWorkflowOperation(wf.collector, { taskQueue: queue, workflowId, workflowIdConflictPolicy: 'FAIL' });
    await assert.rejects(
      env.client.workflow.executeUpdateWithStart(wf.addUpdate, { args: ['third'], startWorkflowOperation: failing }),
      WorkflowExecutionAlreadyStartedError,
    );
    await handle.signal(wf.doneSignal);
    assert.deepEqual(await handle.result(), ['first', 'second']);
  });

  it('retries a failing workflow with its retry policy', async () => {
    const handle = await env.client.workflow.start(wf.retryingWorkflow, {
      taskQueue: queue,
      workflowId: id('wfretry'),
      retry: { initialInterval: '50ms', maximumAttempts: 5 },
    });
    assert.equal(await handle.result(), 3);
    await eventually(async () => {
      const runs: string[] = [];
      for await (const info of env.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs.push(info.status.name);
      assert.deepEqual(runs.sort(), ['COMPLETED', 'FAILED', 'FAILED']);
    });
  });

  it('times out a run after its run timeout', async () => {
    await assert.rejects(
      env.client.workflow.execute(wf.sleeper, {
        taskQueue: queue,
        workflowId: id('runtimeout'),
        args: [60_000],
        workflowRunTimeout: '500ms',
      }),
      (error: unknown) => error instanceof WorkflowFailedError && error.cause instanceof TimeoutFailure,
    );
  });

  it('cancels children when the parent is cancelled, and answers queries before the first task', async () => {
    const handle = await env.client.workflow.start(wf.parentOfWaiter, { taskQueue: queue, workflowId: id('parentcancel') });
    const child = env.client.workflow.getHandle(`${handle.workflowId}-waiter`);
    for (;;) {
      try {
        if ((await child.describe()).status.name === 'RUNNING') break;
      } catch {
        // not started yet
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await handle.cancel();
    await assert.rejects(handle.result(), WorkflowFailedError);
    assert.equal((await child.describe()).status.name, 'CANCELLED');

    const fresh = await env.client.workflow.start(wf.collector, { taskQueue: queue, workflowId: id('earlyquery') });
    assert.deepEqual(await fresh.query(wf.itemsQuery), []);
    await fresh.signal(wf.doneSignal);
    await fresh.result();
  });

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(env.client, [queue]);
      assert.ok(found.length >= 15, `only ${found.length} found`);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
