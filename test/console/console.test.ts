/**
 * The web console in a real browser (Debian's Chromium through playwright-core)
 * against the real app, PostgreSQL, Temporal and a worker: sign in, browse
 * workflows and their graphs, run and watch an execution turn completed live,
 * page the logs, deliver a signal, and what a viewer is not offered.
 * First-render and 200-step layout times are printed, not asserted.
 *
 *   start ─▶ approval (signal-wait "approve") ─▶ after (log)
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { execute, finished, publish, TEMPORAL_UI, waitFor } from '../executions-api/support';
import { launchBrowser } from '../support/browser';
import { grantRole } from '../support/grants';
import { useConsole } from './support';

const approval = (key: string, path = '/') => ({
  name: `Approval ${key}`,
  key,
  path,
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' }, dependsOn: ['start'] },
    after: { type: 'module', pluginType: 'log', config: { message: 'approved' }, dependsOn: ['approval'] },
  },
});

const quick = (key: string, path = '/') => ({
  name: `Quick ${key}`,
  key,
  path,
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: { inputs: { who: { type: 'string', required: true } } } },
    one: { type: 'module', pluginType: 'log', config: { message: 'hello ${{ workflow.inputs.who }}' }, dependsOn: ['start'] },
    two: { type: 'module', pluginType: 'log', config: { message: 'two' }, dependsOn: ['one'] },
    three: { type: 'module', pluginType: 'log', config: { message: 'three' }, dependsOn: ['one'] },
  },
});

/** A binary tree of 200 steps: wide and deep enough to make the layout work. */
const twoHundredSteps = () => ({
  name: 'Two hundred steps',
  key: 'two-hundred',
  path: '/big',
  steps: Object.fromEntries(
    Array.from({ length: 200 }, (_, i) => [
      `s${i}`,
      i === 0
        ? { type: 'trigger', pluginType: 'manual', config: {} }
        : { type: 'module', pluginType: 'log', config: { message: `step ${i}` }, dependsOn: [`s${Math.floor((i - 1) / 2)}`] },
    ]),
  ),
});

describe('web console in a real browser', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org, codes } = ui;
  let base: string;
  let browser: ReturnType<typeof useConsole>['browser'];
  let page: Page;
  before(() => {
    ({ base, browser, page } = ui);
  });

  const nodeStatuses = (p: Page) =>
    p.$$eval('.graph .node', (nodes: PageElement[]): Record<string, string | null> =>
      Object.fromEntries(nodes.map((n) => [n.getAttribute('data-step') ?? '', n.getAttribute('data-status')])),
    );
  const waitForStatuses = (p: Page, expected: Record<string, string>) =>
    p.waitForFunction(
      (want) =>
        Object.entries(want).every(
          ([step, status]) => document.querySelector(`.graph .node[data-step="${step}"]`)?.getAttribute('data-status') === status,
        ),
      expected,
      { timeout: 30_000 },
    );

  it('signs in through a one-time link, which leaves the address bar and cannot be used twice', async () => {
    // Signed out, on a fresh document (the harness signed this page in already).
    await browser.context.clearCookies();
    await page.goto('about:blank');
    const code = codes.issue({ userId: org.userId, organizationId: org.id });
    await page.goto(`${base}/console/#code=${code}`);
    await page.waitForSelector('#app[data-ready]');
    const firstRenderMs = await page.evaluate(() => performance.getEntriesByName('console-ready')[0]?.startTime ?? -1);
    console.log(`    console first render: ${firstRenderMs.toFixed(0)} ms`);
    assert.match((await page.textContent('header .who')) ?? '', new RegExp(`user ${org.userId} · organization ${org.id}`));
    assert.equal(new URL(page.url()).hash, '');
    // The cookie is HttpOnly: scripts cannot read it.
    assert.equal(await page.evaluate(() => document.cookie), '');
    const cookie = (await browser.context.cookies()).find((k) => k.name === 'platform_console_session');
    assert.ok(cookie?.httpOnly);
    assert.equal(cookie?.sameSite, 'Strict');

    const again = await page.evaluate(
      (used) =>
        fetch('/console/session', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-console-request': '1' },
          body: JSON.stringify({ code: used }),
        }).then((r) => r.status),
      code,
    );
    assert.equal(again, 401);
  });

  it('signs in by pasting a token, and signs out', async () => {
    await browser.context.clearCookies();
    await page.goto(`${base}/console/workflows`);
    await page.waitForSelector('form.sign-in');
    await page.fill('#token', org.token);
    await page.click('form.sign-in button[type=submit]');
    await page.waitForSelector('header .who');
    assert.match((await page.textContent('h1')) ?? '', /Workflows/);
    await page.click('header .who button');
    await page.waitForSelector('form.sign-in');
    await page.fill('#token', org.token);
    await page.click('form.sign-in button[type=submit]');
    await page.waitForSelector('header .who');
  });

  it('lists workflows by folder, with search', async () => {
    await publish(env, org, quick('alpha', '/team/payments'));
    await publish(env, org, quick('beta', '/ops'));
    await page.goto(`${base}/console/workflows`);
    await page.waitForSelector('table.workflows');
    const keys = await page.$$eval('table.workflows tbody tr td:nth-child(2)', (cells: PageElement[]) =>
      cells.map((cell) => cell.textContent),
    );
    assert.ok(keys.includes('alpha') && keys.includes('beta'), keys.join());
    assert.ok(await page.$('.folders a:text("payments")'));

    await page.fill('input[name=text]', 'alpha');
    await page.press('input[name=text]', 'Enter');
    await page.waitForFunction(() => document.querySelectorAll('table.workflows tbody tr').length === 1);
    await page.click('.folders a:text("ops")');
    await page.waitForSelector('.state.empty');
  });

  it("draws a revision's graph with one node per step", async () => {
    await page.goto(`${base}/console/workflows/alpha`);
    await page.waitForSelector('.graph svg .node');
    assert.deepEqual(Object.keys(await nodeStatuses(page)).sort(), ['one', 'start', 'three', 'two']);
    assert.equal(await page.$$eval('.graph .edge', (edges) => edges.length), 3);
  });

  it('lays out and draws a 200-step graph (times reported)', async () => {
    await publish(env, org, twoHundredSteps());
    await page.goto(`${base}/console/workflows/two-hundred`);
    await page.waitForSelector('.graph[data-draw-ms]', { timeout: 30_000 });
    const times = await page.$eval('.graph', (g) => ({ layout: g.getAttribute('data-layout-ms'), draw: g.getAttribute('data-draw-ms') }));
    console.log(`    200-step graph: layout ${times.layout} ms, layout and first draw ${times.draw} ms`);
    assert.equal(await page.$$eval('.graph .node', (nodes) => nodes.length), 200);
  });

  it('starts an execution and watches its nodes turn completed without reloading', async () => {
    await page.goto(`${base}/console/workflows/alpha`);
    await page.waitForSelector('[data-action=run]');
    // The run form has one field per input the trigger declares.
    await page.fill('input[name="input.who"]', 'console');
    await page.evaluate(() => (window.notReloaded = true));
    await page.click('[data-action=run]');
    await page.waitForURL(/\/console\/executions\/exec_/);
    await waitForStatuses(page, { start: 'completed', one: 'completed', two: 'completed', three: 'completed' });
    await page.waitForSelector('#execution-status [data-status=completed]');
    await page.waitForSelector('table.logs td:text("hello console")');
    assert.equal(await page.evaluate(() => window.notReloaded), true);
  });

  it("shows why an execution older than Temporal's retention has no Temporal link", async () => {
    const id = await execute(env, org, 'alpha', { inputs: { who: 'old' } });
    await waitFor(env, org, id, finished);
    const days = env.deps.config.temporalRetentionDays + 5;
    await env.db.query(`UPDATE executions SET completed_at = now() - make_interval(days => $2) WHERE id = $1`, [id, days]);
    await page.goto(`${base}/console/executions/${id}`);
    const reason = (await page.textContent('#temporal-history-gone', { timeout: 10_000 })) ?? '';
    assert.match(reason, new RegExp(`this execution ended ${days} days ago`), reason);
    assert.equal(await page.$('a:text("Open in Temporal UI")'), null);
  });

  it('delivers a signal to a waiting run (showing the 409 for a name nothing waits on) and follows it to the end', async () => {
    await publish(env, org, approval('approve'));
    const id = await execute(env, org, 'approve');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    await page.goto(`${base}/console/executions/${id}`);
    await waitForStatuses(page, { approval: 'waiting' });
    await page.waitForSelector('.waits [data-signal=approve]');
    const temporalLink = (await page.getAttribute('a:text("Open in Temporal UI")', 'href')) ?? '';
    assert.ok(temporalLink.startsWith(`${TEMPORAL_UI}/namespaces/`) && temporalLink.includes(`/workflows/${id}`), temporalLink);

    await page.fill('input[name=signal]', 'nope');
    await page.click('[data-action=deliver-signal]');
    await page.waitForSelector('.signal-result .state.error[data-status="409"]');

    await page.fill('input[name=signal]', 'approve');
    await page.fill('textarea[name=payload]', '{"by":"console"}');
    await page.click('[data-action=deliver-signal]');
    await page.waitForSelector('.signal-result .ok');
    await waitForStatuses(page, { approval: 'completed', after: 'completed' });
    await page.waitForSelector('#execution-status [data-status=completed]');
    // The step panel shows what the signal carried.
    await page.click('.graph .node[data-step=approval]');
    await page.waitForSelector('[data-step-panel=approval]');
    assert.match((await page.textContent('[data-step-panel=approval]')) ?? '', /console/);
  });

  it('pages the logs backwards', async () => {
    await publish(env, org, {
      name: 'Chatty',
      key: 'chatty',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: {} },
        each: {
          type: 'module',
          pluginType: 'log',
          config: { message: 'item' },
          forEach: { expression: 'workflow.inputs.list' },
          dependsOn: ['start'],
        },
      },
    });
    const id = await execute(env, org, 'chatty', { inputs: { list: Array.from({ length: 130 }, (_, i) => i) } });
    await waitFor(env, org, id, finished);
    const total = (await org.auth(env.t.request.get(`/workflows/executions/${id}/logs?limit=1`))).body.total as number;
    assert.ok(total > 100, `only ${total} log entries`);
    await page.goto(`${base}/console/executions/${id}`);
    await page.waitForFunction(() => document.querySelectorAll('table.logs tbody tr').length === 100);
    await page.click('[data-action=older-logs]');
    await page.waitForFunction((n) => document.querySelectorAll('table.logs tbody tr').length === n, total);
    assert.equal(await page.isHidden('[data-action=older-logs]'), true);
  });

  it('sets a secret it never shows again', async () => {
    await page.goto(`${base}/console/config?path=/`);
    await page.waitForSelector('[data-action=set-config]');
    await page.fill('input[name=name]', 'CONSOLE_SECRET');
    await page.fill('input[name=value]', 'hunter2-canary');
    await page.click('[data-action=set-config]');
    await page.waitForSelector('tr[data-entry=CONSOLE_SECRET]');
    assert.doesNotMatch(await page.content(), /hunter2-canary/);
  });

  it('offers a viewer no write buttons', async () => {
    const { userId } = await grantRole(env.db, org.id, 'viewer');
    const viewerToken = await env.t.token({ organizationId: org.id, userId });
    await publish(env, org, approval('viewer-wait'));
    const id = await execute(env, org, 'viewer-wait');
    await waitFor(env, org, id, (body) => body.status === 'waiting');

    const viewer = await launchBrowser();
    try {
      const p = viewer.page;
      await p.goto(`${base}/console/sign-in`);
      await p.fill('#token', viewerToken);
      await p.click('form.sign-in button[type=submit]');
      await p.waitForSelector('header .who');
      await p.goto(`${base}/console/workflows/viewer-wait`);
      await p.waitForSelector('.graph svg .node');
      await p.waitForSelector('tr[data-alias=latest]');
      assert.equal(await p.$$eval('[data-action]', (els: PageElement[]) => els.map((e) => e.getAttribute('data-action')).join()), '');
      await p.goto(`${base}/console/executions/${id}`);
      await waitForStatuses(p, { approval: 'waiting' });
      await p.waitForSelector('.waits li');
      assert.equal(
        await p.$$eval('[data-action]:not([data-action=older-logs])', (els: PageElement[]) =>
          els.map((e) => e.getAttribute('data-action')).join(),
        ),
        '',
      );
      await p.goto(`${base}/console/config?path=/`);
      await p.waitForSelector('tr[data-entry=CONSOLE_SECRET]');
      assert.equal(await p.$('[data-action=set-config]'), null);
    } finally {
      await viewer.close();
    }
  });

  it('cancels a waiting run after asking', async () => {
    await publish(env, org, approval('cancel-me'));
    const id = await execute(env, org, 'cancel-me');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    await page.goto(`${base}/console/executions/${id}`);
    await waitForStatuses(page, { approval: 'waiting' });
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('[data-action=cancel]');
    await page.waitForSelector('#execution-status [data-status=cancelled]', { timeout: 30_000 });
    assert.equal(await page.$('[data-action=cancel]'), null);
  });
  it('pages executions past the counted total (1000+), by the next link', async () => {
    // More than the list counts: rows inserted directly, of a workflow of their own (the list reads PostgreSQL only).
    await env.db.query(
      `INSERT INTO executions (id, organization_id, workflow_id, revision, status, trigger, temporal_namespace, created_at)
       SELECT 'exec_console_many_' || g, $1, 'wf_console_many', 1, 'completed', '{"source": "manual", "payload": {}}'::jsonb, 'default',
         timestamptz '2020-01-01' + g * interval '1 second'
       FROM generate_series(1, 1030) AS g`,
      [org.id],
    );
    try {
      await page.goto(`${base}/console/executions?workflowId=wf_console_many`);
      await page.waitForSelector('table.executions');
      assert.match((await page.textContent('.pager')) ?? '', /page 1 of 40\+ \(1000\+\)/);
      await page.click('.pager a:text("Next")');
      await page.waitForURL(/page=2/);
      await page.waitForFunction(() => /page 2 of/.test(document.querySelector('.pager')?.textContent ?? ''));
      assert.equal(await page.$$eval('table.executions tbody tr', (rows) => rows.length), 25);
    } finally {
      await env.db.query(`DELETE FROM executions WHERE organization_id = $1 AND workflow_id = 'wf_console_many'`, [org.id]);
    }
  });
});
