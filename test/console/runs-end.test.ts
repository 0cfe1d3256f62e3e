/**
 * The console and runs that must end (issue 38) in a real browser: the run button of a workflow without a manual
 * trigger asks which of its triggers fires and the run ends; the execution page of a run whose workflow task keeps
 * failing says it makes no progress, with the failure (the API's `health`).
 *
 *   tick (cron) ─┬▶ note (log, any)          start (manual) ─▶ approval (signal-wait)
 *   hook (webhook)┘
 */
import assert from 'node:assert/strict';
import { execute, finished, publish, waitFor } from '../executions-api/support';
import { useConsole } from './support';

describe('console: runs that end', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;

  it('runs a workflow with a cron and a webhook trigger from its page, firing the trigger chosen', async () => {
    await publish(env, org, {
      name: 'Either',
      key: 'either',
      steps: {
        tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '0 3 * * *' } },
        hook: { type: 'trigger', pluginType: 'webhook', config: {} },
        note: { type: 'module', pluginType: 'log', config: { message: 'ran' }, joinStrategy: 'any' },
      },
      connections: [
        { from: 'tick', to: 'note' },
        { from: 'hook', to: 'note' },
      ],
      outputs: { schedule: '${{ trigger.payload.schedule }}' },
    });
    const page = ui.page;
    await page.goto(`${ui.base}/console/workflows/either`);
    await page.waitForSelector('select[name=triggerId]');
    await page.selectOption('select[name=triggerId]', 'tick');
    await page.click('[data-action=run]');
    await page.waitForURL(/\/console\/executions\/exec_/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.deepEqual(done.outputs, { schedule: '0 3 * * *' });
  });

  it('says on the execution page that a run makes no progress while its workflow task keeps failing', async () => {
    await publish(env, org, {
      name: 'Parked',
      key: 'parked',
      steps: {
        start: { type: 'trigger', pluginType: 'manual' },
        approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' } },
      },
      connections: [{ from: 'start', to: 'approval' }],
    });
    const id = await execute(env, org, 'parked');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    // What the open-runs sweep records when Temporal reports the run's workflow task failing (test/executions-api/open-runs.test.ts).
    const health = {
      workflowTaskFailing: true,
      attempts: 7,
      since: new Date(Date.now() - 60_000).toISOString(),
      message: "ReferenceError: Cannot access 'complete' before initialization",
      cause: 'WORKFLOW_WORKER_UNHANDLED_FAILURE',
      checkedAt: new Date().toISOString(),
    };
    await env.db.query(`UPDATE executions SET run_health = $2::jsonb WHERE id = $1`, [id, JSON.stringify(health)]);
    const page = ui.page;
    await page.goto(`${ui.base}/console/executions/${id}`);
    await page.waitForSelector('[data-health=workflow-task-failing]');
    const notice = (await page.textContent('[data-health=workflow-task-failing]')) ?? '';
    assert.match(notice, /makes no progress/);
    assert.match(notice, /failed 7 times/);
    assert.match(notice, /Cannot access 'complete' before initialization/);
    assert.match(notice, /WORKFLOW_WORKER_UNHANDLED_FAILURE/);
    await org
      .auth(env.t.request.post(`/workflows/executions/${id}/terminate`))
      .send({})
      .expect(200);
  });
});
