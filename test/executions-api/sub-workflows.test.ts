/**
 * Sub-workflows end to end: a parent's step runs one child execution per item
 * through the real activities, children are recorded as executions of their
 * own with the parent's id, and their outputs come back in item order; a
 * tree stops at its budget; a fire-and-forget child outlives its parent; the
 * children sweep settles a child Temporal terminated with its parent.
 */
import assert from 'node:assert/strict';
import { WorkflowRevisionRepository, type Runnable } from '../../db/repositories/workflow-revision-repository';
import { newExecutionId, recordRun, settleChildren, TreeBudgetExceeded } from '../../executions';
import { trigger } from '../support/definitions';
import { captureLogger } from '../support/logger';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

describe('executions API: sub-workflows', function () {
  this.timeout(60_000);
  // A small tree budget for the runaway tree below; a low depth bounds that tree if the budget ever fails (40 runs, not 3^10).
  const TREE_BUDGET = 7;
  const { env, org } = useExecEnv({ limits: { maxExecutionsPerTree: TREE_BUDGET, maxSubWorkflowDepth: 3 } });

  it('runs a child per item and collects their outputs in order', async () => {
    await publish(env, org, {
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
    await publish(env, org, {
      name: 'Fan out',
      key: 'fan-out',
      variables: { list: { initialValue: [{ n: 1 }, { n: 2 }, { n: 3 }] } },
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }]', returns: 'items' },
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
    const id = await execute(env, org, 'fan-out');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const results = (done.outputs as { results: Array<{ outputs: { doubled: number }; _childExecutionId: string }> }).results;
    assert.deepEqual(
      results.map((r) => r.outputs.doubled),
      [2, 4, 6],
    );

    const children = await env.db.query<Array<{ id: string; status: string; parent_execution_id: string }>>(
      `SELECT id, status, parent_execution_id FROM executions WHERE parent_execution_id = $1 ORDER BY created_at`,
      [id],
    );
    assert.equal(children.length, 3);
    assert.deepEqual(new Set(children.map((child) => child.id)), new Set(results.map((r) => r._childExecutionId)));
    for (const child of children) {
      const read = await org.auth(env.t.request.get(`/workflows/executions/${child.id}`));
      assert.equal(read.body.status, 'completed');
    }
  });

  it('runs one child with the whole batch as inputs.items when iterateItems is false', async () => {
    await publish(env, org, {
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
    await publish(env, org, {
      name: 'Batch parent',
      key: 'batch-parent',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{ n: 1 }, { n: 2 }, { n: 3 }]', returns: 'items' },
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
    const id = await execute(env, org, 'batch-parent');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { child: { total: 6, label: 'three' } });
    const children = await env.db.query<Array<{ inputs: unknown }>>(`SELECT inputs FROM executions WHERE parent_execution_id = $1`, [id]);
    assert.equal(children.length, 1, 'one child for the whole batch');
    assert.deepEqual(children[0].inputs, { label: 'three', items: [{ n: 1 }, { n: 2 }, { n: 3 }] });
  });

  it('fails the parent step with a clear cause when the child workflow does not exist', async () => {
    await publish(env, org, {
      name: 'Broken parent',
      key: 'broken-parent',
      steps: [
        trigger(),
        { id: 'child', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'no-such-workflow' }, dependsOn: ['start'] },
      ],
    });
    const done = await waitFor(env, org, await execute(env, org, 'broken-parent'), finished);
    assert.equal(done.status, 'failed');
    assert.equal((done.error as { type: string }).type, 'SUBWORKFLOW_NOT_FOUND');
  });

  it('stops a workflow that starts itself three times per level at the tree budget (WORKFLOW_MAX_EXECUTIONS_PER_TREE)', async function () {
    this.timeout(120_000);
    //   root ─┬─ child ─┬─ grandchild ─ …   each run starts itself three times: 3 + 9 + 27 … below the root,
    //         ├─ child ─┼─ …                 of which the budget lets 7 be recorded, at every depth together
    //         └─ child ─┴─ …
    await publish(env, org, {
      name: 'Fan self',
      key: 'fan-self',
      steps: [
        trigger(),
        {
          id: 'items',
          type: 'module',
          pluginType: 'code-exec',
          config: { code: 'return [{}, {}, {}]', returns: 'items' },
          dependsOn: ['start'],
        },
        { id: 'again', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'fan-self' }, dependsOn: ['items'] },
      ],
    });
    const root = await execute(env, org, 'fan-self');
    const done = await waitFor(env, org, root, finished, '', 90_000);
    assert.equal(done.status, 'failed', JSON.stringify(done));
    assert.equal((done.error as { type: string }).type, 'SUBWORKFLOW_TREE_BUDGET_EXCEEDED');

    const rows = await env.db.query<
      Array<{ id: string; descendants: number; error: { type: string; message: string; stepId?: string } | null }>
    >(`SELECT id, descendants, error FROM executions WHERE organization_id = $1 AND workflow_key = 'fan-self' ORDER BY created_at`, [
      org.id,
    ]);
    assert.equal(rows.length, TREE_BUDGET + 1, 'the root and the budget, no more');
    assert.equal(rows.find((row) => row.id === root)?.descendants, TREE_BUDGET);
    // The run whose step crossed the budget failed there, naming the root and the budget.
    const refused = rows.find((row) => row.error?.type === 'SUBWORKFLOW_TREE_BUDGET_EXCEEDED' && row.error.message.includes(root));
    assert.ok(refused, JSON.stringify(rows.map((row) => row.error)));
    assert.equal(refused.error?.stepId, 'again');
    assert.match(
      refused.error?.message ?? '',
      new RegExp(`execution ${root} may hold at most ${TREE_BUDGET} executions.*WORKFLOW_MAX_EXECUTIONS_PER_TREE`),
    );
    const step = await org.auth(env.t.request.get(`/workflows/executions/${refused.id}/steps/again`));
    assert.equal(step.status, 200, JSON.stringify(step.body));
    assert.equal(step.body.record.status, 'failed');
    assert.equal(step.body.record.error.code, 'SUBWORKFLOW_TREE_BUDGET_EXCEEDED');
  });

  it('counts a child recorded twice (a retried prepareChild) once, and siblings recorded at once never past the budget', async () => {
    await publish(env, org, { name: 'Counted leaf', key: 'counted-leaf', steps: [trigger()] });
    const runnable = (await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, 'counted-leaf', {})) as Runnable;
    // What prepareChild records (the row only; no workflow is started).
    const record = (id: string, rootExecutionId?: string, budget = 2) =>
      recordRun(env.db, {
        id,
        organizationId: org.id,
        runnable,
        inputs: {},
        trigger: { source: 'sub-workflow', payload: {}, receivedAt: new Date().toISOString() },
        idempotencyKey: `child:${id}`,
        parentExecutionId: rootExecutionId,
        createdBy: null,
        temporalNamespace: env.temporal.namespace ?? 'default',
        settings: { limits: { ...env.limits, maxExecutionsPerTree: budget }, rootExecutionId },
      });
    const descendants = async (id: string) =>
      (await env.db.query<Array<{ n: number }>>(`SELECT descendants AS n FROM executions WHERE id = $1`, [id]))[0].n;

    const root = (await record(newExecutionId())).row.id;
    const child = newExecutionId();
    assert.equal((await record(child, root)).created, true);
    assert.equal((await record(child, root)).created, false, 'the retry finds its row');
    assert.equal(await descendants(root), 1, 'and is not counted again');
    await record(newExecutionId(), root);
    const past = newExecutionId();
    await assert.rejects(record(past, root), (error: unknown) => error instanceof TreeBudgetExceeded && error.rootExecutionId === root);
    assert.equal((await env.db.query(`SELECT 1 FROM executions WHERE id = $1`, [past])).length, 0, 'nothing recorded past the budget');

    // Ten siblings recorded at the same moment: the root's row lock lets exactly the budget through.
    const busy = (await record(newExecutionId())).row.id;
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => record(newExecutionId(), busy, 3)));
    assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 3);
    assert.equal(await descendants(busy), 3);
  });

  it('lets a fire-and-forget child outlive its parent and records its end', async () => {
    await publish(env, org, {
      name: 'Waits for go',
      key: 'waits-for-go',
      steps: [trigger(), { id: 'approval', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go' }, dependsOn: ['start'] }],
    });
    await publish(env, org, {
      name: 'Fire and forget',
      key: 'fire-and-forget',
      steps: [
        trigger(),
        {
          id: 'child',
          type: 'module',
          pluginType: 'sub-workflow',
          config: { workflowId: 'waits-for-go', waitForCompletion: false },
          dependsOn: ['start'],
        },
      ],
      outputs: { child: '${{ steps.child.outputs._childExecutionId }}' },
    });
    const parent = await waitFor(env, org, await execute(env, org, 'fire-and-forget'), finished);
    assert.equal(parent.status, 'completed', JSON.stringify(parent));
    const childId = (parent.outputs as { child: string }).child;

    // The parent has ended; the child still waits (Temporal did not terminate it with its parent), and the children sweep leaves it be.
    await waitFor(env, org, childId, (body) => body.status === 'waiting');
    const swept = await sweepChildren();
    assert.ok(swept.left.includes(childId) && !swept.settled.includes(childId), JSON.stringify(swept));
    const signalled = await org.auth(env.t.request.post(`/workflows/executions/${childId}/signals/go`)).send({ ok: true });
    assert.equal(signalled.status, 200, JSON.stringify(signalled.body));
    const child = await waitFor(env, org, childId, finished);
    assert.equal(child.status, 'completed', JSON.stringify(child));
    const [row] = await env.db.query<Array<{ status: string; parent_execution_id: string }>>(
      `SELECT status, parent_execution_id FROM executions WHERE id = $1`,
      [childId],
    );
    assert.deepEqual(row, { status: 'completed', parent_execution_id: parent.id });
  });

  it('settles a waited-for child that Temporal terminated with its failed parent (the children sweep)', async () => {
    //   start ─┬─ child(sub-workflow "waits-for-go", waited for)
    //          └─ hold(wait "stop") ─▶ boom(fail)       the parent fails while its child waits
    await publish(env, org, {
      name: 'Fails while child waits',
      key: 'fails-while-child-waits',
      steps: [
        trigger(),
        { id: 'child', type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'waits-for-go' }, dependsOn: ['start'] },
        { id: 'hold', type: 'wait', pluginType: 'signal-wait', config: { signalName: 'stop' }, dependsOn: ['start'] },
        { id: 'boom', type: 'module', pluginType: 'fail', config: { message: 'the parent gives up' }, dependsOn: ['hold'] },
      ],
    });
    const parent = await execute(env, org, 'fails-while-child-waits');
    let childId = '';
    for (let i = 0; i < 300 && !childId; i++) {
      const rows = await env.db.query<Array<{ id: string }>>(`SELECT id FROM executions WHERE parent_execution_id = $1`, [parent]);
      childId = rows[0]?.id ?? '';
      if (!childId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitFor(env, org, childId, (body) => body.status === 'waiting');
    const stopped = await org.auth(env.t.request.post(`/workflows/executions/${parent}/signals/stop`)).send({});
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.equal((await waitFor(env, org, parent, finished)).status, 'failed');
    // Temporal terminated the child with its parent; a terminated run records nothing, so its row still says waiting.
    await waitForTemporalStatus(childId, 'TERMINATED');
    assert.equal(
      (await env.db.query<Array<{ status: string }>>(`SELECT status FROM executions WHERE id = $1`, [childId]))[0].status,
      'waiting',
    );

    assert.ok((await sweepChildren()).settled.includes(childId));
    const child = await org.auth(env.t.request.get(`/workflows/executions/${childId}`));
    assert.equal(child.body.status, 'terminated');
    assert.equal(child.body.error.type, 'TERMINATED');
    assert.match(child.body.error.message, new RegExp(`terminated when its parent execution ${parent} ended`));
    assert.ok(!(await sweepChildren()).settled.includes(childId), 'a settled row is no candidate');
  });

  /** One children sweep of this file's organization, without a grace period. */
  const sweepChildren = () =>
    settleChildren(
      { dataSource: env.db, temporal: env.temporal.client, logger: captureLogger('info').logger },
      { graceMs: 0, organizationId: org.id },
    );

  const waitForTemporalStatus = async (id: string, status: string) => {
    for (let i = 0; i < 300; i++) {
      if ((await env.temporal.client.workflow.getHandle(id).describe()).status.name === status) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.fail(`${id} never reached ${status} in Temporal`);
  };
});
