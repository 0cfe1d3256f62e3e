/**
 * Approvals in the console (issue 42), in a real browser against the real app on the real Temporal server: a run
 * that waits for two approvers with four eyes (approvers by role on the application's NRN, rendered from the
 * run's inputs). The starter's answer is refused; the first approver's approval through the form counts one of
 * two; a user of a sibling account sees nothing in the inbox; the second approver's approval moves the run on. A
 * reject ends another run on the reject path, and an approval that arrives after it says the run moved on.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { finished, publish, waitFor } from '../executions-api/support';
import { grantRole } from '../support/grants';
import { showcase, useConsole } from './support';

describe('web console: waiting on you (approvals)', function () {
  this.timeout(180_000);
  const ui = useConsole();
  const { env, org } = ui;

  const definition = {
    name: 'Access request',
    key: 'access-approval',
    inputs: { application_nrn: { type: 'string' }, user: { type: 'string' } },
    steps: {
      start: { type: 'trigger', pluginType: 'manual' },
      approval: {
        type: 'wait',
        pluginType: 'signal-wait',
        config: {
          signalName: 'decision',
          title: 'Grant access to ${{ workflow.inputs.user }}?',
          description: 'Write access on ${{ workflow.inputs.application_nrn }} for 7 days',
          form: {
            type: 'object',
            required: ['approved'],
            properties: { approved: { type: 'boolean' }, comment: { type: 'string', title: 'Comment', maxLength: 200 } },
          },
          approvers: { roles: ['developer'], nrn: '${{ workflow.inputs.application_nrn }}' },
          excludeStarter: true,
          required: 2,
        },
      },
      decide: { type: 'decider', pluginType: 'conditional', config: { expression: 'steps.approval.outputs.payload.approved == true' } },
      granted: { type: 'module', pluginType: 'log', config: { message: 'granted' } },
      refused: { type: 'module', pluginType: 'log', config: { message: 'refused' } },
    },
    connections: [
      { from: 'start', to: 'approval' },
      { from: 'approval', to: 'decide' },
      { from: 'decide', sourcePort: 'true', to: 'granted' },
      { from: 'decide', sourcePort: 'false', to: 'refused' },
    ],
  };

  /** Signs the page in as `userId` and waits until the header names that user (the page was signed in as another). */
  const signInAs = async (page: Page, userId: string) => {
    // From another document: a link that changes only the hash would not load the console again.
    await page.goto('about:blank');
    await ui.signIn(page, userId);
    await page.waitForFunction((id) => document.querySelector('header .who')?.textContent?.includes(`user ${id} `) === true, userId);
  };
  const count = async (page: Page) => {
    await page.waitForSelector('a.waiting-on-you[data-count]');
    return page.getAttribute('a.waiting-on-you', 'data-count');
  };
  const logsOf = async (id: string) =>
    ((await org.auth(env.t.request.get(`/workflows/executions/${id}/logs`))).body.data as Array<{ message: string }>).map((l) => l.message);
  const waitingRecorded = async (id: string) => {
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    for (let i = 0; i < 200; i++) {
      if ((await env.db.query<unknown[]>(`SELECT 1 FROM execution_waits WHERE execution_id = $1`, [id])).length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('four eyes and two approvals through the form; the inbox shows the right runs to the right users; a reject ends a run', async () => {
    const { page, base } = ui;
    await publish(env, org, definition);
    const app = `organization=${org.id}:account=101:namespace=11:application=1`;
    const starter = (await grantRole(env.db, org.id, 'developer')).userId;
    const first = (await grantRole(env.db, org.id, 'developer', `organization=${org.id}:account=101`)).userId;
    const second = (await grantRole(env.db, org.id, 'developer', `organization=${org.id}:account=101`)).userId;
    const sibling = (await grantRole(env.db, org.id, 'developer', `organization=${org.id}:account=202`)).userId;
    const starterToken = await env.t.token({ organizationId: org.id, userId: starter });
    const start = async (user: string) => {
      const res = await env.t.request
        .post('/workflows/definitions/access-approval/execute')
        .set('Authorization', `Bearer ${starterToken}`)
        .send({ inputs: { application_nrn: app, user } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      return res.body.executionId as string;
    };
    const run = await start('ada');
    await waitingRecorded(run);
    await page.setViewportSize({ width: 1300, height: 900 });

    // The starter: nothing waits on them, and an answer anyway is refused (four eyes).
    await signInAs(page, starter);
    assert.equal(await count(page), '0');
    const refused = await page.evaluate(async (path) => {
      const res = await fetch(path, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'content-type': 'application/json', 'x-console-request': '1' },
        body: JSON.stringify({ approved: true }),
      });
      return { status: res.status, type: ((await res.json()) as { type: string }).type };
    }, `/workflows/executions/${run}/signals/decision`);
    assert.equal(refused.status, 403);
    assert.match(refused.type, /\/starter-may-not-answer$/);

    // A user of a sibling account: nothing.
    await signInAs(page, sibling);
    assert.equal(await count(page), '0');
    await page.goto(`${base}/console/approvals`);
    await page.waitForSelector('main .state.empty');

    // The first approver: the count, the inbox, the answer page with the run's rendered text, Approve.
    await signInAs(page, first);
    assert.equal(await count(page), '1');
    await page.goto(`${base}/console/approvals`);
    await page.click(`[data-approval="${run}"] a`);
    await page.waitForSelector('[data-action=approve]');
    assert.equal(await page.textContent('main h1'), 'Grant access to ada?');
    assert.equal(await page.textContent('.answer-description'), `Write access on ${app} for 7 days`);
    await page.waitForSelector('.answer-inputs');
    assert.deepEqual(JSON.parse((await page.textContent('.answer-inputs')) ?? '{}'), { application_nrn: app, user: 'ada' });
    await page.fill('.answer-form input[type=text], .answer-form textarea', 'fine by me');
    await showcase(page, 'approval-answer');
    await page.click('[data-action=approve]');
    await page.waitForSelector('[data-answer=counted]');
    assert.match((await page.textContent('[data-answer=counted]')) ?? '', /1 of 2 approvals/);
    assert.equal((await org.auth(env.t.request.get(`/workflows/executions/${run}`))).body.status, 'waiting');

    // The second approver moves the run on.
    await signInAs(page, second);
    assert.equal(await count(page), '1');
    await page.goto(`${base}/console/approvals`);
    await page.click(`[data-approval="${run}"] a`);
    await page.click('[data-action=approve]');
    await page.waitForSelector('[data-answer=released]');
    const done = await waitFor(env, org, run, finished);
    assert.equal(done.status, 'completed');
    assert.deepEqual(await logsOf(run), ['granted']);

    // A reject ends another run on the reject path; an approval arriving after that says the run moved on.
    const other = await start('bob');
    await waitingRecorded(other);
    await page.goto(`${base}/console/approvals`);
    await page.click(`[data-approval="${other}"] a`);
    await page.waitForSelector('[data-action=approve]');
    const firstToken = await env.t.token({ organizationId: org.id, userId: first });
    const reject = await env.t.request
      .post(`/workflows/executions/${other}/signals/decision`)
      .set('Authorization', `Bearer ${firstToken}`)
      .send({ approved: false, comment: 'no' });
    assert.equal(reject.status, 200, JSON.stringify(reject.body));
    assert.equal(reject.body.released, true);
    assert.equal((await waitFor(env, org, other, finished)).status, 'completed');
    assert.deepEqual(await logsOf(other), ['refused']);
    await page.click('[data-action=approve]');
    await page.waitForSelector('[data-answer=moved-on]');
    await page.reload();
    await page.waitForSelector('[data-answer=gone]');
  });

  it('rejects through the form: the Reject button ends the wait at once on the reject path', async () => {
    const { page, base } = ui;
    const app = `organization=${org.id}:account=101:namespace=11:application=1`;
    const starterToken = await env.t.token({ organizationId: org.id, userId: (await grantRole(env.db, org.id, 'developer')).userId });
    const approver = (await grantRole(env.db, org.id, 'developer', `organization=${org.id}:account=101`)).userId;
    const res = await env.t.request
      .post('/workflows/definitions/access-approval/execute')
      .set('Authorization', `Bearer ${starterToken}`)
      .send({ inputs: { application_nrn: app, user: 'eve' } });
    const id = res.body.executionId as string;
    await waitingRecorded(id);
    await signInAs(page, approver);
    await page.goto(`${base}/console/approvals`);
    await page.click(`[data-approval="${id}"] a`);
    await page.click('[data-action=reject]');
    await page.waitForSelector('[data-answer=released]');
    assert.equal((await waitFor(env, org, id, finished)).status, 'completed');
    assert.deepEqual(await logsOf(id), ['refused']);
  });
});
