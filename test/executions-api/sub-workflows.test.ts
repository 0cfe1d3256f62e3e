/**
 * Sub-workflows end to end: a parent's step runs one child execution per item
 * through the real activities, children are recorded as executions of their
 * own with the parent's id, and their outputs come back in item order.
 */
import assert from 'node:assert/strict';
import { trigger } from '../support/definitions';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: sub-workflows', function () {
  this.timeout(60_000);
  const { x, c } = useExecEnv();

  it('runs a child per item and collects their outputs in order', async () => {
    await publish(x, c, {
      name: 'Double',
      key: 'double',
      steps: [
        trigger(),
        {
          id: 'calc',
          type: 'module',
          pluginType: 'set-variable',
          config: { path: 'result', value: '${{ workflow.inputs.n * 2 }}' },
          dependsOn: ['start'],
        },
      ],
      outputs: { doubled: '${{ variables.result }}' },
    });
    await publish(x, c, {
      name: 'Fan out',
      key: 'fan-out',
      variables: { list: { initialValue: [{ n: 1 }, { n: 2 }, { n: 3 }] } },
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }]' },
          dependsOn: ['start'],
        },
        {
          id: 'children',
          type: 'module',
          pluginType: 'sub-workflow',
          config: { workflowId: 'double', inputs: { n: '${{ $item.n }}' } },
          dependsOn: ['items'],
        },
      ],
      outputs: { results: '${{ steps.children.items }}' },
    });
    const id = await execute(x, c, 'fan-out');
    const done = await waitFor(x, c, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const results = (done.outputs as { results: Array<{ outputs: { doubled: number }; _childExecutionId: string }> }).results;
    assert.deepEqual(
      results.map((r) => r.outputs.doubled),
      [2, 4, 6],
    );

    const children = await x.db.query<Array<{ id: string; status: string; parent_execution_id: string }>>(
      `SELECT id, status, parent_execution_id FROM executions WHERE parent_execution_id = $1 ORDER BY created_at`,
      [id],
    );
    assert.equal(children.length, 3);
    assert.deepEqual(new Set(children.map((child) => child.id)), new Set(results.map((r) => r._childExecutionId)));
    for (const child of children) {
      const read = await c.auth(x.t.request.get(`/workflows/executions/${child.id}`));
      assert.equal(read.body.status, 'completed');
    }
  });

  it('runs one child with the whole batch as inputs.items when iterateItems is false', async () => {
    await publish(x, c, {
      name: 'Sum',
      key: 'sum-batch',
      steps: [
        trigger(),
        {
          id: 'sum',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return { total: inputs.items.reduce((a, i) => a + i.n, 0), label: inputs.label }' },
          dependsOn: ['start'],
        },
      ],
      outputs: { total: '${{ steps.sum.outputs.total }}', label: '${{ steps.sum.outputs.label }}' },
    });
    await publish(x, c, {
      name: 'Batch parent',
      key: 'batch-parent',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }]' },
          dependsOn: ['start'],
        },
        {
          id: 'child',
          type: 'module',
          pluginType: 'sub-workflow',
          config: { workflowId: 'sum-batch', iterateItems: false, inputs: { label: 'three' } },
          dependsOn: ['items'],
        },
      ],
      outputs: { child: '${{ steps.child.outputs.outputs }}' },
    });
    const id = await execute(x, c, 'batch-parent');
    const done = await waitFor(x, c, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { child: { total: 6, label: 'three' } });
    const children = await x.db.query<Array<{ inputs: unknown }>>(`SELECT inputs FROM executions WHERE parent_execution_id = $1`, [id]);
    assert.equal(children.length, 1, 'one child for the whole batch');
    assert.deepEqual(children[0].inputs, { label: 'three', items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it('fails the parent step with a clear cause when the child workflow does not exist', async () => {
    await publish(x, c, {
      name: 'Broken parent',
      key: 'broken-parent',
      steps: [
        trigger(),
        { id: 'child', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'no-such-workflow' }, dependsOn: ['start'] },
      ],
    });
    const done = await waitFor(x, c, await execute(x, c, 'broken-parent'), finished);
    assert.equal(done.status, 'failed');
    assert.equal((done.error as { type: string }).type, 'SUBWORKFLOW_NOT_FOUND');
  });
});
