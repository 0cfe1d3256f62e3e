import assert from 'node:assert/strict';
import { defineSearchAttributeKey } from '@temporalio/common';
import { testTemporalKind } from '../support/temporal';
import { createWorker, eventually, historiesOf, newProbe, replayFailures, uniqueQueue, useTemporalEnv, withWorker } from './harness';
import * as wf from './workflows';

const orderId = defineSearchAttributeKey('OrderId', 'KEYWORD');

describe('temporal conformance: core', function () {
  this.timeout(60_000);
  const queue = uniqueQueue('core');
  const probe = newProbe();

  const env = useTemporalEnv('local', { searchAttributes: [orderId] });

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
