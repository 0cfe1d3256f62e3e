/**
 * The console's home page, executions list and triggers page in a real browser against
 * the real app: known executions (one real run waiting on a signal, the others inserted
 * as rows, as the list reads PostgreSQL only) → the home page's counts per status, the
 * failing workflow, the waiting run with its signal, the next scheduled run; the triggers
 * page's schedule (next run) and webhook (URL); the list's search by id, status, workflow
 * and time-range filters, trigger and duration columns. Times are printed, not asserted.
 *
 *   approval:  start ─▶ approval (signal-wait "approve") ─▶ after (log)
 *   timed:     tick (cron, yearly) ─┐
 *              hook (webhook) ──────┴▶ work (log)
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { execute, publish, waitFor } from '../executions-api/support';
import { showcase, useConsole } from './support';

const logOnly = (key: string) => ({
  name: `Workflow ${key}`,
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    one: { type: 'module', pluginType: 'log', config: { message: 'one' }, dependsOn: ['start'] },
  },
});

const approval = (key: string) => ({
  name: `Approval ${key}`,
  key,
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' }, dependsOn: ['start'] },
    after: { type: 'module', pluginType: 'log', config: { message: 'approved' }, dependsOn: ['approval'] },
  },
});

const timed = (key: string) => ({
  name: `Timed ${key}`,
  key,
  steps: {
    tick: { type: 'trigger', pluginType: 'cron', config: { schedule: '0 0 1 1 *', timezone: 'Asia/Tokyo' } },
    hook: { type: 'trigger', pluginType: 'webhook', config: {} },
    work: { type: 'module', pluginType: 'log', config: { message: 'tick' }, dependsOn: ['tick', 'hook'] },
  },
});

describe('console: home, executions list and triggers', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  let base: string;
  let page: Page;
  const ids: Record<string, string> = {};
  let waitingRun: string;

  /**
   * An execution row of `workflow` (its id and key), created `minutesAgo`, ended 90 s later unless running.
   * No Temporal run, in a namespace of its own: the start reconciler leaves it alone, and the
   * harness's history replay skips it.
   */
  const insert = async (name: string, workflow: string, status: string, minutesAgo: number, source = 'manual') => {
    const id = `exec_home_${name}_${org.id}`;
    await env.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, status, trigger, temporal_namespace,
         temporal_run_id, created_at, completed_at)
       VALUES ($1, $2, $3, $4, 1, $5, jsonb_build_object('source', $6::text, 'payload', '{}'::jsonb), 'console-rows', NULL,
         now() - make_interval(mins => $7), CASE WHEN $5 IN ('running', 'waiting') THEN NULL
           ELSE now() - make_interval(mins => $7) + interval '90 seconds' END)`,
      [id, org.id, ids[workflow], workflow, status, source, minutesAgo],
    );
    return id;
  };
  const rowIds = () =>
    page.$$eval('table.executions tbody tr', (rows: PageElement[]) => rows.map((row) => row.getAttribute('data-execution') ?? ''));

  before(async () => {
    ({ base, page } = ui);
    for (const key of ['home-flaky', 'home-steady']) ids[key] = await publish(env, org, logOnly(key));
    ids['home-approval'] = await publish(env, org, approval('home-approval'));
    ids['home-timed'] = await publish(env, org, timed('home-timed'));
    const on = await org.auth(env.t.request.post('/workflows/definitions/home-timed/aliases/latest/activate'));
    assert.equal(on.status, 200, JSON.stringify(on.body));
    waitingRun = await execute(env, org, 'home-approval');
    await waitFor(env, org, waitingRun, (body) => body.status === 'waiting');
    // Known executions of the last 24 hours: 1 running, 1 waiting (the real run), 4 completed, 4 failed, 1 cancelled.
    for (let i = 0; i < 3; i++) await insert(`flaky${i}`, 'home-flaky', 'failed', 60 * (i + 2));
    for (let i = 0; i < 4; i++) await insert(`steady${i}`, 'home-steady', 'completed', 30 + 120 * i);
    await insert('steady-failed', 'home-steady', 'failed', 300);
    await insert('cancelled', 'home-flaky', 'cancelled', 400);
    await insert('running', 'home-steady', 'running', 10, 'webhook');
    // Three days old: outside the home page's window and the list's "last 24 hours".
    await insert('old', 'home-steady', 'completed', 3 * 24 * 60);
  });

  it('shows the counts per status of the last 24 hours, the failing workflow and the waiting run', async () => {
    const started = Date.now();
    await page.goto(`${base}/console/`);
    await page.waitForSelector('.totals [data-total=failed]');
    await page.waitForSelector('.home-waiting table, .home-waiting .state');
    await page.waitForSelector('.home-scheduled table, .home-scheduled .state');
    console.log(`    home page with its five reads: ${Date.now() - started} ms`);
    const totals = await page.$$eval('.totals li', (items: PageElement[]): Record<string, string | null> =>
      Object.fromEntries(items.map((li) => [li.getAttribute('data-total') ?? '', li.getAttribute('data-count')])),
    );
    assert.deepEqual(totals, { running: '1', waiting: '1', completed: '4', failed: '4', cancelled: '1', terminated: '0' });
    // The chart: 24 or 25 hourly bars whose counts add up to the 11 executions.
    const bars = await page.$$eval('.stats-chart .bar', (gs: PageElement[]) => gs.map((g) => Number(g.getAttribute('data-count'))));
    assert.ok(bars.length === 24 || bars.length === 25, String(bars.length));
    assert.equal(
      bars.reduce((a, b) => a + b, 0),
      11,
    );
    // The failing workflows, most failures first, each linking to its failed executions.
    const failing = await page.$$eval('.home-failing tbody tr', (rows: PageElement[]) => rows.map((r) => r.textContent ?? ''));
    assert.match(failing[0], /Workflow home-flaky.*3 failed/);
    assert.match(failing[1], /Workflow home-steady.*1 failed/);
    const href = (await page.getAttribute(`.home-failing tr[data-workflow="${ids['home-flaky']}"] td:nth-child(2) a`, 'href')) ?? '';
    assert.match(href, new RegExp(`workflowId=${ids['home-flaky']}.*status=failed|status=failed.*workflowId=${ids['home-flaky']}`));
    // The waiting run with the signal it waits on; the next scheduled run.
    await page.waitForSelector(`.home-waiting tr[data-execution="${waitingRun}"] [data-signal=approve]`);
    assert.ok(await page.$(`.home-scheduled tr[data-trigger="${ids['home-timed']}/latest/tick"]`));
    assert.ok(await page.$('.home-recent tr[data-execution^="exec_home_running_"]'));
    await showcase(page, 'home');
  });

  it('lists every trigger: a schedule with its next run, a webhook with its URL', async () => {
    await page.goto(`${base}/console/triggers`);
    await page.waitForSelector('table.triggers-list');
    const tick = `tr[data-trigger="${ids['home-timed']}/latest/tick"]`;
    const hook = `tr[data-trigger="${ids['home-timed']}/latest/hook"]`;
    // Midnight of the next January 1st in Tokyo, as Temporal's schedule says.
    const now = new Date();
    let expected = Date.UTC(now.getUTCFullYear(), 11, 31, 15);
    if (expected <= now.getTime()) expected = Date.UTC(now.getUTCFullYear() + 1, 11, 31, 15);
    assert.equal(await page.getAttribute(`${tick} td.next-run`, 'data-next-run'), new Date(expected).toISOString());
    assert.match((await page.textContent(`${tick} [data-status]`)) ?? '', /active/);
    assert.match((await page.textContent(`${hook} code.webhook`)) ?? '', /\/workflows\/webhooks\//);
    assert.equal(await page.getAttribute(`${tick} td:nth-child(2) a`, 'href'), `/console/workflows/${ids['home-timed']}`);
    await showcase(page, 'triggers');
    // Filtered by kind.
    await page.selectOption('select[name=kind]', 'webhook');
    await page.click('form.filters button[type=submit]');
    await page.waitForURL(/kind=webhook/);
    await page.waitForFunction(() => document.querySelectorAll('table.triggers-list tbody tr').length === 1);
  });

  it('finds an execution by id', async () => {
    await page.goto(`${base}/console/executions`);
    await page.fill('input[name=id]', waitingRun);
    await page.press('input[name=id]', 'Enter');
    await page.waitForURL(new RegExp(`/console/executions/${waitingRun}$`));
    await page.waitForSelector('#execution-status [data-status=waiting]');
    await page.goto(`${base}/console/executions?id=exec_nothing_here`);
    await page.waitForSelector('.state.empty');
  });

  it('narrows the list by workflow, status and time range, with trigger and duration columns', async () => {
    await page.goto(`${base}/console/executions`);
    await page.waitForSelector(`select[name=workflowId] option[value="${ids['home-steady']}"]`, { state: 'attached' });
    await page.selectOption('select[name=workflowId]', ids['home-steady']);
    await page.click('form.filters:not([role]) button[type=submit]');
    await page.waitForURL(/workflowId=/);
    await page.waitForSelector('table.executions');
    assert.equal((await rowIds()).length, 7);
    // Trigger source and duration (ended: 90 s; running: since it started, 10 minutes ago).
    const running = `tr[data-execution="exec_home_running_${org.id}"]`;
    assert.equal(await page.textContent(`${running} td.trigger`), 'webhook');
    assert.match((await page.textContent(`${running} td.duration`)) ?? '', /^1\d min \d+ s$/);
    assert.equal(await page.textContent(`tr[data-execution="exec_home_steady0_${org.id}"] td.duration`), '1 min 30 s');
    assert.equal(await page.textContent(`tr[data-execution="exec_home_steady0_${org.id}"] td.trigger`), 'manual');

    await page.selectOption('select[name=range]', '24h');
    await page.click('form.filters:not([role]) button[type=submit]');
    await page.waitForURL(/range=24h/);
    await page.waitForFunction(() => document.querySelectorAll('table.executions tbody tr').length === 6);
    assert.ok(!(await rowIds()).includes(`exec_home_old_${org.id}`));
    await showcase(page, 'executions');

    await page.selectOption('select[name=status]', 'failed');
    await page.click('form.filters:not([role]) button[type=submit]');
    await page.waitForURL(/status=failed/);
    await page.waitForFunction(() => document.querySelectorAll('table.executions tbody tr').length === 1);
    assert.deepEqual(await rowIds(), [`exec_home_steady-failed_${org.id}`]);
    // The filters live in the address: a reload shows the same rows with the same choices.
    await page.reload();
    await page.waitForSelector('table.executions');
    assert.deepEqual(await rowIds(), [`exec_home_steady-failed_${org.id}`]);
    assert.equal(await page.$eval('select[name=status]', (el: PageElement) => el.value), 'failed');
    assert.equal(await page.$eval('select[name=range]', (el: PageElement) => el.value), '24h');

    // A custom range: only the one of three days ago.
    const from = new Date(Date.now() - 4 * 86_400_000).toISOString();
    const to = new Date(Date.now() - 2 * 86_400_000).toISOString();
    await page.goto(`${base}/console/executions?workflowId=${ids['home-steady']}&range=custom&from=${from}&to=${to}`);
    await page.waitForSelector('table.executions');
    assert.deepEqual(await rowIds(), [`exec_home_old_${org.id}`]);
    assert.equal(await page.isVisible('input[name=from]'), true);
  });
  it('pages a list of the last 24 hours by cursor, its start fixed in the address', async () => {
    await env.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, workflow_key, revision, status, trigger, temporal_namespace, created_at, completed_at)
       SELECT 'exec_home_many_' || lpad(g::text, 2, '0') || '_' || $1, $1, 'wf_home_many', 'home-many', 1, 'completed',
         '{"source": "manual", "payload": {}}'::jsonb, 'console-rows', now() - g * interval '1 minute', now()
       FROM generate_series(1, 30) AS g`,
      [org.id],
    );
    await page.goto(`${base}/console/executions?workflowId=wf_home_many&range=24h`);
    await page.waitForSelector('table.executions');
    assert.equal((await rowIds()).length, 25);
    assert.match((await page.textContent('.pager')) ?? '', /page 1 of 2 \(30\)/);
    await page.click('.pager a:text("Next")');
    await page.waitForURL(/cursor=/);
    // The preset's start travels with the cursor (the API refuses a cursor made for other filters).
    const next = new URL(page.url());
    assert.equal(next.searchParams.get('range'), '24h');
    assert.ok(!Number.isNaN(Date.parse(next.searchParams.get('from') ?? '')), page.url());
    await page.waitForFunction(() => /page 2 of 2/.test(document.querySelector('.pager')?.textContent ?? ''));
    assert.deepEqual(
      await rowIds(),
      [26, 27, 28, 29, 30].map((n) => `exec_home_many_${n}_${org.id}`),
    );
    await page.click('.pager a:text("Previous")');
    await page.waitForFunction(() => /page 1 of 2/.test(document.querySelector('.pager')?.textContent ?? ''));
    assert.equal((await rowIds()).length, 25);
  });

  it("keeps a running execution's duration going", async () => {
    await page.goto(`${base}/console/executions?status=running`);
    const cell = `tr[data-execution="exec_home_running_${org.id}"] td.duration`;
    await page.waitForSelector(cell);
    const first = await page.textContent(cell);
    await page.waitForFunction(([selector, shown]) => document.querySelector(selector)?.textContent !== shown, [cell, first] as const, {
      timeout: 10_000,
    });
  });
});
