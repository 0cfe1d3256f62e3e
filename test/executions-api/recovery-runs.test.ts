/**
 * Recovery runs (issue 18 §2): when an execution fails, every live `on-error`
 * and matching `execution-failed-trigger` binding of the organization starts
 * a run with the failure as payload, idempotency key `onerror:<failed id>`,
 * one level only; a failure whose recording process died before dispatching
 * is found by the reconciler's failure sweep. Through HTTP, PostgreSQL,
 * Temporal and the real worker.
 */
import assert from 'node:assert/strict';
import { captureLogger } from '../support/logger';
import { trigger } from '../support/definitions';
import { workflowReach } from '../../api/access/workflow-reach';
import { recordRun, sweepFailures } from '../../executions';
import { ExecutionRepository } from '../../db/repositories/execution-repository';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { execute, finished, publish, useExecEnv, waitFor, type ExecEnv, type OrgContext } from './support';

interface Listed {
  id: string;
  status: string;
  idempotencyKey?: string;
  inputs?: Record<string, unknown>;
}

describe('executions API: recovery runs of failed executions', function () {
  this.timeout(90_000);
  const { env, org } = useExecEnv({ org: 'each' });

  async function activate(ref: string): Promise<void> {
    const res = await org.auth(env.t.request.post(`/workflows/definitions/${ref}/aliases/latest/activate`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  async function runsOf(ref: string): Promise<Listed[]> {
    const res = await org.auth(env.t.request.get(`/workflows/executions?workflowId=${ref}`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data as Listed[];
  }

  async function eventually<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
    for (let i = 0; i < 200; i++) {
      const found = await probe();
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`never: ${what}`);
  }

  /** A handler: its trigger, then a step that records the failure it was given. */
  async function handler(
    key: string,
    triggerStep: Record<string, unknown>,
    last: Record<string, unknown> = { pluginType: 'no-op', config: {} },
  ) {
    await publish(env, org, {
      name: key,
      key,
      steps: [triggerStep, { id: 'handle', type: 'module', ...last, dependsOn: [triggerStep.id] }],
      outputs: {
        failed: '${{ workflow.inputs.executionId }}',
        workflow: '${{ workflow.inputs.workflowId }}',
        step: '${{ workflow.inputs.stepId }}',
        code: '${{ workflow.inputs.error.type }}',
      },
    });
    await activate(key);
  }

  async function failing(key: string): Promise<{ workflowId: string }> {
    const workflowId = await publish(env, org, {
      name: key,
      key,
      steps: [
        trigger(),
        { id: 'boom', type: 'module', pluginType: 'fail', config: { message: 'broken', code: 'BROKEN' }, dependsOn: ['start'] },
      ],
    });
    return { workflowId };
  }

  it('starts an on-error run and a watching execution-failed-trigger run with the failure as payload', async () => {
    await handler('recover', { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: { scope: 'workflow' } });
    await handler('watch', { id: 'failedRun', type: 'trigger', pluginType: 'execution-failed-trigger', config: { workflowId: 'breaks' } });
    await handler('watch-other', {
      id: 'failedRun',
      type: 'trigger',
      pluginType: 'execution-failed-trigger',
      config: { workflow_id: 'some-other-workflow' },
    });
    const { workflowId } = await failing('breaks');
    const failedId = await execute(env, org, 'breaks');
    assert.equal((await waitFor(env, org, failedId, finished)).status, 'failed');

    for (const ref of ['recover', 'watch']) {
      const [run] = await eventually(`a ${ref} run`, async () => ((await runsOf(ref)).length > 0 ? runsOf(ref) : undefined));
      assert.equal(run.idempotencyKey, `onerror:${failedId}`);
      const done = await waitFor(env, org, run.id, finished);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      assert.deepEqual(done.outputs, { failed: failedId, workflow: workflowId, step: 'boom', code: 'BROKEN' });
    }
    assert.deepEqual(await runsOf('watch-other'), [], 'a trigger watching another workflow stays quiet');
  });

  it('goes one level only: a failing recovery run starts no other', async () => {
    //   breaks fails ─▶ recover-fails (fails too) ─✗─▶ nothing more, in either handler
    await handler(
      'recover-fails',
      { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: {} },
      { pluginType: 'fail', config: { message: 'the handler broke too' } },
    );
    await handler('recover', { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: {} });
    await failing('breaks');
    const failedId = await execute(env, org, 'breaks');
    await waitFor(env, org, failedId, finished);
    const [bad] = await eventually('the failing recovery run', async () => {
      const runs = await runsOf('recover-fails');
      return runs.length > 0 && runs[0].status === 'failed' ? runs : undefined;
    });
    assert.equal(bad.idempotencyKey, `onerror:${failedId}`);
    // The sweep finds nothing left to dispatch, and no run was started for the handler's failure.
    await sweepFailures(dispatchDeps(env), { organizationId: org.id, graceMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal((await runsOf('recover-fails')).length, 1);
    assert.deepEqual(
      (await runsOf('recover')).map((run) => run.idempotencyKey),
      [`onerror:${failedId}`],
    );
  });

  it('scope step (or its older spelling listenFor) ignores failures no step caused', async () => {
    await handler('recover-steps', { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: { scope: 'step' } });
    await handler('recover-steps-old', { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: { listenFor: 'step' } });
    const failed = await lostFailure(env, org, 'breaks', { type: 'START_LOST', message: 'never started' });
    await sweepFailures(dispatchDeps(env), { organizationId: org.id, graceMs: 0 });
    const row = await new ExecutionRepository(env.db.manager).findOneBy({ id: failed });
    assert.notEqual(row?.failureDispatchedAt, null, 'the failure counts as dispatched');
    assert.deepEqual(await runsOf('recover-steps'), []);
    assert.deepEqual(await runsOf('recover-steps-old'), []);
  });

  it('the reconciler dispatches a failure whose recording process died before dispatching', async () => {
    await handler('recover', { id: 'onErr', type: 'trigger', pluginType: 'on-error', config: {} });
    // A failure recorded by a worker that died before starting the recovery runs.
    const failedId = await lostFailure(env, org, 'breaks', { type: 'BROKEN', message: 'broken', stepId: 'boom' });
    assert.deepEqual(await runsOf('recover'), []);
    const handled = await sweepFailures(dispatchDeps(env), { organizationId: org.id, graceMs: 0 });
    assert.deepEqual(handled, [failedId]);
    const [run] = await runsOf('recover');
    assert.equal(run.idempotencyKey, `onerror:${failedId}`);
    const done = await waitFor(env, org, run.id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal((done.outputs as Record<string, unknown>).failed, failedId);
    // A second sweep (another replica) starts nothing more.
    assert.deepEqual(await sweepFailures(dispatchDeps(env), { organizationId: org.id, graceMs: 0 }), []);
    assert.equal((await runsOf('recover')).length, 1);
  });
});

function dispatchDeps(env: ExecEnv) {
  return {
    dataSource: env.db,
    temporal: env.temporal.client,
    taskQueue: env.taskQueue,
    publicBaseUrl: 'http://api.test',
    limits: env.limits,
    logger: captureLogger('info').logger,
    reach: workflowReach,
  };
}

/** Records an execution of a published workflow and marks it failed, as a worker would, without dispatching. */
async function lostFailure(env: ExecEnv, org: OrgContext, key: string, error: Record<string, unknown>): Promise<string> {
  await publish(env, org, { name: key, key, steps: [trigger()] });
  const runnable = await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, key, {});
  if (typeof runnable === 'string') throw new Error(runnable);
  const id = `exec_lost${Math.random().toString(16).slice(2, 10)}`;
  await recordRun(env.db, {
    id,
    organizationId: org.id,
    runnable,
    inputs: {},
    trigger: { source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
    createdBy: null,
    temporalNamespace: env.temporal.namespace ?? 'default',
    settings: { publicBaseUrl: 'http://api.test', limits: env.limits },
  });
  await new ExecutionRepository(env.db.manager).finish(id, 'failed', null, error);
  return id;
}
