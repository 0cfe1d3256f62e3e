import assert from 'node:assert/strict';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createTestTemporalEnv } from '../support/temporal';
import { createWorker, eventually, historiesOf, newProbe, replayFailures, uniqueQueue, withWorker, workflowBundle } from './harness';
import * as wf from './workflows';

describe('temporal conformance: core', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  const queue = uniqueQueue('core');
  const probe = newProbe();

  before(async function () {
    this.timeout(120_000);
    [env] = await Promise.all([createTestTemporalEnv('local'), workflowBundle()]);
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

  it('replays every history cleanly', async () => {
    const histories = await eventually(async () => {
      const found = await historiesOf(env.client, [queue]);
      assert.ok(found.length > 0);
      return found;
    });
    assert.deepEqual(await replayFailures(histories), []);
  });
});
