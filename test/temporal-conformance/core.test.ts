import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { defineSearchAttributeKey } from '@temporalio/common';
import { createTestTemporalEnv, testTemporalKind } from '../support/temporal';
import { createWorker, eventually, historiesOf, newProbe, replayFailures, uniqueQueue, withWorker, workflowBundle } from './harness';
import * as wf from './workflows';

const orderId = defineSearchAttributeKey('OrderId', 'KEYWORD');

describe('temporal conformance: core', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  const queue = uniqueQueue('core');
  const probe = newProbe();

  before(async function () {
    this.timeout(120_000);
    [env] = await Promise.all([createTestTemporalEnv('local', { searchAttributes: [orderId] }), workflowBundle()]);
  });

  after(async () => {
    await env?.teardown();
  });

  it('runs a workflow with one activity', async () => {
    const worker = await createWorker(env, queue, probe);
    const result = await withWorker(worker, () =>
      env.client.workflow.execute(wf.oneActivity, { taskQueue: queue, workflowId: `one-${queue}`, args: ['hi'] }),
    );
    assert.equal(result, 'echo:hi');
  });

  it('registers custom search attributes on the local server and filters by them', async function () {
    if ((await testTemporalKind()) === 'configured') this.skip();
    const worker = await createWorker(env, queue, probe);
    await withWorker(worker, () =>
      env.client.workflow.execute(wf.oneActivity, {
        taskQueue: queue,
        workflowId: `order-${queue}`,
        args: ['order'],
        typedSearchAttributes: [{ key: orderId, value: 'o-1' }],
      }),
    );
    await eventually(async () => {
      const ids: string[] = [];
      for await (const info of env.client.workflow.list({ query: `OrderId = 'o-1' AND TaskQueue = '${queue}'` })) ids.push(info.workflowId);
      assert.deepEqual(ids, [`order-${queue}`]);
    });
  });

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(env.client, [queue]);
      assert.ok(found.length > 0);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
