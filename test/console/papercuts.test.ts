/**
 * Small faults of the console met while answering approvals, each checked in a
 * real browser against the real app: a graph's labels stay readable and whole
 * (fitted or not), the live timeline lists each step once after a signal, the
 * step panel grows with its content instead of clipping it, the new workflow
 * page does not claim a revision it has not published, a bulk grant's error
 * names the row as the form numbers it, and the revision diff's collapsed
 * stretches draw no glyph the fonts lack.
 *
 *   start ─▶ ask ─▶ wait_for_approval ─▶ approved ─true─▶ grant
 *                          │                  └──false─▶ refuse
 *                          └─timeout─▶ expire
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { grantRole } from '../support/grants';
import { execute, finished, publish, waitFor } from '../executions-api/support';
import { useConsole } from './support';

/** Runs in the browser (the test program has no DOM library). */
declare const getComputedStyle: (element: unknown, pseudo?: string) => { fontSize: string; content: string };

/** Pictures to look at, kept out of git (test-artifacts/console/ holds the committed ones). */
const look = (page: Page, name: string, fullPage = false) =>
  page.screenshot({ path: path.resolve('test-artifacts', 'papercuts', `${name}.png`), fullPage });

const approval = {
  name: 'Papercut approval',
  key: 'papercut-approval',
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    ask: { type: 'module', pluginType: 'log', config: { message: 'please approve' }, dependsOn: ['start'] },
    wait_for_approval: {
      type: 'wait',
      pluginType: 'signal-wait',
      config: { signalName: 'approve', timeout: '3d', onTimeout: 'continue' },
      dependsOn: ['ask'],
    },
    approved: {
      type: 'decider',
      pluginType: 'conditional',
      config: { expression: 'steps.wait_for_approval.outputs.payload.approved == true' },
      dependsOn: ['wait_for_approval'],
    },
    grant: { type: 'module', pluginType: 'log', config: { message: 'granted' } },
    refuse: { type: 'module', pluginType: 'log', config: { message: 'refused' } },
    expire: { type: 'module', pluginType: 'log', config: { message: 'expired' } },
  },
  connections: [
    { from: 'approved', sourcePort: 'true', to: 'grant' },
    { from: 'approved', sourcePort: 'false', to: 'refuse' },
    { from: 'wait_for_approval', sourcePort: 'timeout', to: 'expire' },
  ],
};

/** The smallest title font a person is expected to read, in CSS pixels on the screen. */
const READABLE_TITLE_PX = 11;

describe('console: papercuts', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  let page: Page;
  let base: string;
  let waitingRun: string;

  before(async () => {
    ({ page, base } = ui);
    await publish(env, org, approval);
    waitingRun = await execute(env, org, 'papercut-approval');
    await waitFor(env, org, waitingRun, (body) => body.status === 'waiting');
  });

  /** Every node title of the graph on the page: its text, and its font size as drawn on the screen. */
  const titles = (p: Page) =>
    p.$$eval('.graph .node', (nodes: PageElement[]) =>
      nodes.map((node) => {
        const title = (node as unknown as { querySelector(s: string): unknown }).querySelector('.node-title') as {
          textContent: string;
          getScreenCTM(): { a: number } | null;
        };
        const size = parseFloat(getComputedStyle(title).fontSize);
        return { step: node.getAttribute('data-step'), text: title.textContent, px: size * (title.getScreenCTM()?.a ?? 0) };
      }),
    );
  const assertReadable = (seen: Array<{ step: string | null; text: string; px: number }>, why: string) => {
    for (const t of seen) {
      assert.equal(t.text, t.step, `${why}: the title of ${t.step} is whole`);
      assert.ok(t.px >= READABLE_TITLE_PX, `${why}: the title of ${t.step} is drawn at ${t.px.toFixed(1)} px`);
    }
  };

  it('draws graph labels whole and readable, on the first view and after Fit (a long graph pans instead)', async () => {
    await page.goto(`${base}/console/executions/${waitingRun}`);
    await page.waitForSelector('.graph .node[data-step=wait_for_approval]');
    await page.waitForSelector('.graph[data-draw-ms]');
    await look(page, 'approval-graph');
    assertReadable(await titles(page), 'first view');
    await page.click('.graph-tools button:text("Fit")');
    assertReadable(await titles(page), 'after Fit');
    // The full name is also where the step is shown in full: its hover title and the step panel.
    assert.match((await page.textContent('.graph .node[data-step=wait_for_approval] title')) ?? '', /^wait_for_approval\b/);
    await page.click('.graph .node[data-step=wait_for_approval]');
    await page.waitForSelector('[data-step-panel=wait_for_approval] h2');
    assert.match((await page.textContent('[data-step-panel=wait_for_approval] h2')) ?? '', /^wait_for_approval/);

    // A chain too long to fit readably: Fit keeps the labels readable and the rest is reached by panning.
    const long = Object.fromEntries(
      Array.from({ length: 40 }, (_, i) => [
        `check_${String(i).padStart(2, '0')}`,
        i === 0
          ? { type: 'trigger', pluginType: 'manual', config: {} }
          : { type: 'module', pluginType: 'log', config: { message: `${i}` }, dependsOn: [`check_${String(i - 1).padStart(2, '0')}`] },
      ]),
    );
    await publish(env, org, { name: 'Papercut long', key: 'papercut-long', steps: long });
    await page.goto(`${base}/console/workflows/papercut-long`);
    await page.waitForSelector('.graph[data-draw-ms]');
    const first = (await titles(page)).filter((t) => t.step === 'check_00');
    assertReadable(first, 'a long graph, first view');
    await page.click('.graph-tools button:text("Fit")');
    assertReadable(await titles(page), 'a long graph after Fit');
    await look(page, 'long-graph');
  });

  it('lists each step once on the live timeline after a signal (the skipped branches included)', async () => {
    const id = await execute(env, org, 'papercut-approval');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    await page.goto(`${base}/console/executions/${id}`);
    await page.waitForSelector('tr.step-row[data-step=wait_for_approval][data-status=waiting]');
    await page.waitForSelector('form.signal-form');
    const sent = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ approved: true, by: 'ada' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await waitFor(env, org, id, finished);
    await page.waitForSelector('#execution-status [data-status=completed]');
    await page.waitForSelector('tr.step-row[data-step=grant][data-status=completed]');
    // The end re-reads the step runs: wait for both skipped branches to be there.
    await page.waitForSelector('tr.step-row[data-step=refuse][data-status=skipped]');
    await page.waitForSelector('tr.step-row[data-step=expire][data-status=skipped]');
    await page.waitForFunction(() => document.querySelector('.live') === null);
    const live = await page.$$eval('table.timeline tr.step-row', (trs: PageElement[]) => trs.map((tr) => tr.getAttribute('data-step')));
    await page.reload();
    await page.waitForSelector('tr.step-row[data-step=grant]');
    const reloaded = await page.$$eval('table.timeline tr.step-row', (trs: PageElement[]) => trs.map((tr) => tr.getAttribute('data-step')));
    assert.deepEqual([...live].sort(), [...new Set(live)].sort(), `a step listed twice: ${live.join(', ')}`);
    assert.deepEqual([...live].sort(), [...reloaded].sort());
  });

  it('grows the step panel with its content rather than clipping it in a box of its own', async () => {
    const id = await execute(env, org, 'papercut-approval');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    const sent = await org
      .auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`))
      .send({ approved: true, by: 'ada', note: Array.from({ length: 60 }, (_, i) => `line ${i}`) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await waitFor(env, org, id, finished);
    await page.goto(`${base}/console/executions/${id}`);
    await page.click('tr.step-row[data-step=wait_for_approval] th button');
    await page.waitForSelector('[data-step-panel=wait_for_approval] [data-section=outputs]');
    const box = await page.$eval('.step-panel', (el: PageElement) => {
      const e = el as unknown as { scrollHeight: number; clientHeight: number };
      return { scroll: e.scrollHeight, client: e.clientHeight };
    });
    assert.ok(box.scroll <= box.client + 1, `the panel shows ${box.client} px of ${box.scroll} px`);
    assert.match((await page.textContent('[data-step-panel=wait_for_approval] [data-section=outputs]')) ?? '', /line 59/);
    await page.$eval('.execution-body', (el) => (el as unknown as { scrollIntoView(): void }).scrollIntoView());
    await look(page, 'step-panel', true);
  });

  it('says on the new workflow page that nothing is published yet', async () => {
    await page.goto(`${base}/console/workflows/new`);
    await page.waitForSelector('.editor-status:not([data-lint=pending])', { timeout: 20_000 });
    await look(page, 'new-workflow');
    const meta = (await page.textContent('main h1 + p.meta')) ?? '';
    assert.doesNotMatch(meta, /Published as/);
    assert.match(meta, /Not published yet/);
  });

  it("names a bulk grant's failing row as the form numbers it", async () => {
    const { userId } = await grantRole(env.db, org.id, null);
    await page.goto(`${base}/console/admin/users/${userId}`);
    await page.waitForSelector('form.grant-form');
    for (let i = 0; i < 3; i += 1) await page.click('[data-action=add-item]');
    const item = (i: number) => `tr.grant-item[data-item="${i}"]`;
    await page.selectOption(`${item(0)} select`, 'viewer');
    await page.fill(`${item(0)} input[name=nrn]`, `organization=${org.id}:account=11`);
    await page.selectOption(`${item(1)} select`, 'developer');
    await page.fill(`${item(1)} input[name=nrn]`, `organization=${org.id}:account=12`);
    // Row 3: not an NRN. Row 4: row 1 again.
    await page.selectOption(`${item(2)} select`, 'viewer');
    await page.fill(`${item(2)} input[name=nrn]`, 'not an nrn');
    await page.selectOption(`${item(3)} select`, 'viewer');
    await page.fill(`${item(3)} input[name=nrn]`, `organization=${org.id}:account=11`);
    await page.click('[data-action=grant]');
    await page.waitForSelector(`${item(2)}[data-result=failed]`);
    await page.waitForSelector(`${item(3)}[data-result=failed]`);
    await look(page, 'grant-rows');
    const row3 = (await page.textContent(`${item(2)} .grant-result`)) ?? '';
    assert.equal(await page.textContent(`${item(2)} td.index`), '3');
    assert.doesNotMatch(row3, /item 2/, row3);
    assert.match(row3, /row 3/, row3);
    const row4 = (await page.textContent(`${item(3)} .grant-result`)) ?? '';
    assert.match(row4, /rows 1 and 4/, row4);
  });

  it('draws the collapsed unchanged lines of a revision diff without a glyph the fonts lack', async () => {
    const steps = (extra: Record<string, unknown>) => ({
      ...Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [
          `s${i}`,
          i === 0
            ? { type: 'trigger', pluginType: 'manual', config: {} }
            : { type: 'module', pluginType: 'log', config: { message: `step ${i}` }, dependsOn: [`s${i - 1}`] },
        ]),
      ),
      ...extra,
    });
    await publish(env, org, { name: 'Papercut diff', key: 'papercut-diff', steps: steps({}) });
    const second = await org.auth(env.t.request.put('/workflows/definitions/papercut-diff')).send({
      name: 'Papercut diff',
      steps: steps({ last: { type: 'module', pluginType: 'log', config: { message: 'new' }, dependsOn: ['s11'] } }),
    });
    assert.ok([200, 201].includes(second.status), JSON.stringify(second.body));
    await page.goto(`${base}/console/workflows/papercut-diff/diff?from=1&to=2`);
    await page.waitForSelector('.cm-collapsedLines');
    const drawn = await page.$$eval('.cm-collapsedLines', (all: PageElement[]) =>
      all.map((el) => {
        return [getComputedStyle(el, '::before').content, el.textContent ?? '', getComputedStyle(el, '::after').content].join('|');
      }),
    );
    assert.ok(drawn.length > 0);
    // Printable ASCII only: every font has it.
    for (const text of drawn) assert.match(text, /^[\x20-\x7e]*$/, text);
    assert.match(drawn[0], /unchanged lines/);
    await look(page, 'revision-diff');
  });
});
