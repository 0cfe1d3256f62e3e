/**
 * Every run ends, and the API agrees with Temporal (executions/check-open-runs.ts): a run Temporal closed behind
 * the API's back is settled by the open-runs sweep and by cancel/terminate (which answer with the real status), and
 * a run whose workflow task keeps failing says so on GET, from PostgreSQL, with the failure Temporal recorded.
 *
 *   start (manual) ──▶ approval (signal-wait): parks until signalled (or closed from outside)
 */
import assert from 'node:assert/strict';
import { createHttpMetrics } from '../../api/ops/metrics';
import { workflowReach } from '../../api/access/workflow-reach';
import { startExecutionReconciler } from '../../startup/execution-reconciler';
import { WorkflowRevisionRepository } from '../../db/repositories/workflow-revision-repository';
import { checkOpenRuns, newExecutionId, recordRun, startExecutionWorkflow, type OpenRunsSweepResult } from '../../executions';
import type { ExecutionInput } from '../../workflows/engine';
import { captureLogger } from '../support/logger';
import { execute, finished, publish, useExecEnv, waitFor } from './support';

const approval = (key: string) => ({
  name: 'Approval',
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual' },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' } },
  },
  connections: [{ from: 'start', to: 'approval' }],
});

const waiting = (body: Record<string, unknown>) => body.status === 'waiting';

describe('executions API: open runs brought in line with Temporal', function () {
  this.timeout(90_000);
  const { env, org } = useExecEnv({ org: 'each' });
  const log = captureLogger('info');
  const deps = () => ({ dataSource: env.db, temporal: env.temporal.client, logger: log.logger });
  /** One pass over this test's organization (the test database is shared), past no grace period. */
  const sweep = (): Promise<OpenRunsSweepResult> => checkOpenRuns(deps(), { graceMs: 0, organizationId: org.id });

  it('settles a run terminated through the Temporal client, and a later terminate answers 409 with that status', async () => {
    await publish(env, org, approval('approval'));
    const id = await execute(env, org, 'approval');
    await waitFor(env, org, id, waiting);
    // Terminating runs no workflow code: nothing records the end but the API's own terminate, bypassed here.
    await env.temporal.client.workflow.getHandle(id).terminate('pulled by an operator in the Temporal UI');
    const before = await org.auth(env.t.request.get(`/workflows/executions/${id}`)).expect(200);
    assert.equal(before.body.status, 'waiting', 'the row does not know yet');

    const passed = await sweep();
    assert.deepEqual(passed.settled, [{ id, status: 'terminated' }]);
    const after = await org.auth(env.t.request.get(`/workflows/executions/${id}`)).expect(200);
    assert.equal(after.body.status, 'terminated');
    assert.deepEqual(after.body.error, { type: 'TERMINATED', message: 'pulled by an operator in the Temporal UI' });
    assert.equal(typeof after.body.completedAt, 'string', 'an ended row: retention removes it like any other');
    assert.deepEqual((await sweep()).settled, [], 'an ended row is no candidate');
  });

  it("is the reconciler's job: its timer settles a run terminated behind the API's back and reports the pass", async () => {
    await publish(env, org, approval('approval'));
    const id = await execute(env, org, 'approval');
    await waitFor(env, org, id, waiting);
    const passes: Array<{ settled: string[]; taskFailing: number }> = [];
    const reconciler = startExecutionReconciler(
      { ...deps(), taskQueue: env.taskQueue, publicBaseUrl: 'http://api.test', limits: env.limits, reach: workflowReach },
      {
        intervalMs: 100,
        organizationId: org.id,
        openRunsGraceMs: 0,
        onOpenRuns: (found, taskFailing) => passes.push({ settled: found.settled.map((run) => run.id), taskFailing }),
      },
    );
    try {
      await env.temporal.client.workflow.getHandle(id).terminate('from the Temporal CLI');
      const done = await waitFor(env, org, id, finished, '', 30_000);
      assert.equal(done.status, 'terminated');
      assert.ok(passes.some((pass) => pass.settled.includes(id)));
      assert.equal(typeof passes[0].taskFailing, 'number');
    } finally {
      await reconciler.stop();
    }
  });

  it('answers terminate and cancel of a run Temporal already closed with its real status, recording it', async () => {
    await publish(env, org, approval('approval'));
    const terminated = await execute(env, org, 'approval');
    const cancelled = await execute(env, org, 'approval');
    await waitFor(env, org, terminated, waiting);
    await waitFor(env, org, cancelled, waiting);
    await env.temporal.client.workflow.getHandle(terminated).terminate('gone');

    const terminate = await org.auth(env.t.request.post(`/workflows/executions/${terminated}/terminate`)).send({});
    assert.equal(terminate.status, 409, JSON.stringify(terminate.body));
    assert.match(terminate.body.detail, /has already finished \(terminated\)/);
    const cancel = await org.auth(env.t.request.post(`/workflows/executions/${terminated}/cancel`)).send({});
    assert.equal(cancel.status, 409, JSON.stringify(cancel.body));
    assert.match(cancel.body.detail, /has already finished \(terminated\)/);

    // A run that ended cancelled in Temporal while its row lost the record (the row put back as open, as a crashed
    // recording would leave it): terminate settles it as cancelled.
    await org
      .auth(env.t.request.post(`/workflows/executions/${cancelled}/cancel`))
      .send({})
      .expect(202);
    await waitFor(env, org, cancelled, finished);
    await env.db.query(`UPDATE executions SET status = 'running', completed_at = NULL, error = NULL WHERE id = $1`, [cancelled]);
    const late = await org.auth(env.t.request.post(`/workflows/executions/${cancelled}/terminate`)).send({});
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.match(late.body.detail, /has already finished \(cancelled\)/);
    const read = await org.auth(env.t.request.get(`/workflows/executions/${cancelled}`)).expect(200);
    assert.equal(read.body.status, 'cancelled');
    assert.equal((read.body.error as { type: string }).type, 'CANCELLED');
  });

  it('settles a run Temporal no longer knows as RUN_LOST once the execution is old enough, not before', async () => {
    await publish(env, org, approval('approval'));
    const runnable = await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, 'approval', {});
    if (typeof runnable === 'string') throw new Error(runnable);
    const lost = async (ageMinutes: number) => {
      const { row } = await recordRun(env.db, {
        id: newExecutionId(),
        organizationId: org.id,
        runnable,
        inputs: {},
        trigger: { stepId: 'start', source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
        createdBy: org.userId,
        temporalNamespace: env.temporal.client.options.namespace,
        settings: { publicBaseUrl: 'http://api.test', limits: env.limits },
      });
      // A run recorded against a Temporal that has since lost it (a dev server restarted without its file).
      await env.db.query(
        `UPDATE executions SET temporal_run_id = 'gone', created_at = now() - $2::int * interval '1 minute' WHERE id = $1`,
        [row.id, ageMinutes],
      );
      return row.id;
    };
    const old = await lost(11);
    const young = await lost(1);
    const passed = await sweep();
    assert.deepEqual(passed.settled, [{ id: old, status: 'terminated' }]);
    assert.deepEqual(passed.left, [young]);
    const read = await org.auth(env.t.request.get(`/workflows/executions/${old}`)).expect(200);
    assert.equal((read.body.error as { type: string }).type, 'RUN_LOST');
    // No history to replay when the file's environment stops.
    await env.db.query(`UPDATE executions SET temporal_run_id = NULL WHERE id = ANY($1::text[])`, [[old, young]]);
  });

  it('shows a run whose workflow task keeps failing on GET, with the failure, then settles it once terminated', async () => {
    await publish(env, org, approval('approval'));
    const runnable = await new WorkflowRevisionRepository(env.db.manager).findRunnable(org.id, 'approval', {});
    if (typeof runnable === 'string') throw new Error(runnable);
    const { row, input } = await recordRun(env.db, {
      id: newExecutionId(),
      organizationId: org.id,
      runnable,
      inputs: {},
      trigger: { stepId: 'start', source: 'manual', payload: {}, receivedAt: new Date().toISOString() },
      createdBy: org.userId,
      temporalNamespace: env.temporal.client.options.namespace,
      settings: { publicBaseUrl: 'http://api.test', limits: env.limits },
    });
    // An input the workflow cannot read (a definition without steps): its first workflow task throws a TypeError,
    // which Temporal retries for ever. The run id stays unrecorded, so the file's closing replay skips this history.
    const broken = { ...input, definition: { ...input.definition, steps: undefined } } as unknown as ExecutionInput;
    await startExecutionWorkflow({ temporal: env.temporal.client, taskQueue: env.taskQueue }, row, broken);
    try {
      let health: Record<string, unknown> | undefined;
      for (let i = 0; i < 100 && !health; i++) {
        await sweep();
        const read = await org.auth(env.t.request.get(`/workflows/executions/${row.id}`)).expect(200);
        assert.equal(read.body.status, 'running');
        health = read.body.health as Record<string, unknown> | undefined;
        if (!health) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.ok(health, 'the failing workflow task shows on GET');
      assert.equal(health.workflowTaskFailing, true);
      assert.ok(Number(health.attempts) >= 2);
      assert.match(String(health.message), /Cannot convert undefined or null to object/, 'the failure of the workflow task');
      assert.equal(health.cause, 'WORKFLOW_WORKER_UNHANDLED_FAILURE');
      assert.ok(!Number.isNaN(Date.parse(String(health.since))));
      assert.ok(
        log.entries().some((e) => e.executionId === row.id && /keeps failing/.test(String(e.msg)) && typeof e.failure === 'string'),
        'a log line names the failure',
      );
      const metrics = createHttpMetrics();
      metrics.openRunsChecked({ newlyFailing: [row.id], settled: [{ status: 'terminated' }] }, 1);
      const text = await metrics.text();
      assert.match(text, /^executions_workflow_task_failing 1$/m);
      assert.match(text, /^executions_workflow_task_failing_found_total 1$/m);
      assert.match(text, /^executions_settled_from_temporal_total\{status="terminated"\} 1$/m);
    } finally {
      await env.temporal.client.workflow.getHandle(row.id).terminate('test over');
    }
    await sweep();
    const ended = await org.auth(env.t.request.get(`/workflows/executions/${row.id}`)).expect(200);
    assert.equal(ended.body.status, 'terminated');
    assert.equal(ended.body.health, undefined, 'an ended run has no health to report');
  });
});
