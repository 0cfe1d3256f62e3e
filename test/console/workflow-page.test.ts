/**
 * The workflow page in a real browser: the graph (icons per kind and plugin, a
 * compact drawing for a small workflow, keyboard navigation, a 1,000-step graph
 * laid out and drawn, time printed), the step panel (a step's definition as
 * written, a secret reference shown as the reference and never its value), the
 * run form generated from the declared inputs (a required input left empty
 * starts nothing), what the aliases' state means, and the config page finding
 * entries kept in sub-folders.
 *
 *   start (manual: who*, count, loud, color, extra) ─▶ call (http-request, secret header) ─▶ check ─true─▶ ship
 *                                                    │                                              └false─▶ rollback
 *                                                    └▶ note (log) ─▶ hold (signal-wait)
 */
import assert from 'node:assert/strict';
import { publish } from '../executions-api/support';
import { showcase, useConsole } from './support';

const SECRET_VALUE = 'sk-live-workflow-page-canary-41f7';

const tour = (key: string) => ({
  name: key === 'deploy' ? 'Deploy a service' : `Deploy ${key}`,
  key,
  path: '/team/deploys',
  steps: {
    start: {
      type: 'trigger',
      pluginType: 'manual',
      config: {
        inputs: {
          who: { type: 'string', required: true, description: 'Who asks for the deploy' },
          count: { type: 'integer', default: 2 },
          loud: { type: 'boolean' },
          color: { type: 'string', enum: ['red', 'blue'] },
          extra: { type: 'object' },
        },
      },
    },
    call: {
      type: 'module',
      pluginType: 'http-request',
      name: 'Call the deploy API',
      config: {
        url: 'https://deploy.example.test/${{ workflow.inputs.who }}',
        method: 'POST',
        headers: { authorization: 'Bearer ${{ secrets.DEPLOY_TOKEN }}' },
      },
      timeout: '20s',
      errorHandling: { retryPolicy: { maxRetries: 2 } },
      dependsOn: ['start'],
    },
    check: {
      type: 'decider',
      pluginType: 'conditional',
      name: 'Healthy?',
      config: { expression: 'steps.call.outputs.statusCode == 200' },
      dependsOn: ['call'],
    },
    ship: { type: 'module', pluginType: 'sub-workflow', config: { workflowId: 'announce' } },
    rollback: { type: 'module', pluginType: 'code-exec', config: { code: 'return { rolledBack: true };' } },
    note: { type: 'module', pluginType: 'log', config: { message: 'deploying for ${{ workflow.inputs.who }}' }, dependsOn: ['start'] },
    hold: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'go', timeout: '1h' }, dependsOn: ['note'] },
  },
  connections: [
    { from: 'check', to: 'ship', sourcePort: 'true' },
    { from: 'check', to: 'rollback', sourcePort: 'false' },
  ],
});

/** 1,000 steps: a tree of three children per step, and every tenth step also joins its predecessor (long edges). */
const thousandSteps = () => ({
  name: 'A thousand steps',
  key: 'thousand',
  path: '/big',
  steps: Object.fromEntries(
    Array.from({ length: 1000 }, (_, i) => [
      `s${i}`,
      i === 0
        ? { type: 'trigger', pluginType: 'manual', config: {} }
        : {
            type: 'module',
            pluginType: i % 7 === 0 ? 'no-op' : 'log',
            config: { message: `step ${i}` },
            dependsOn: i % 10 === 0 && i > 20 ? [`s${Math.floor((i - 1) / 3)}`, `s${i - 1}`] : [`s${Math.floor((i - 1) / 3)}`],
          },
    ]),
  ),
});

describe('console: the workflow page, its graph and the config page', function () {
  this.timeout(180_000);
  const ui = useConsole();
  const { env, org } = ui;
  let deployId = '';

  before(async () => {
    deployId = await publish(env, org, tour('deploy'));
    // The secret exists with a value: the page must show the reference, never this value.
    const set = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'DEPLOY_TOKEN', value: SECRET_VALUE, secret: true, path: '/' });
    assert.equal(set.status, 201, set.text);
  });

  it('draws an icon per kind and plugin, compact for a small workflow', async () => {
    const page = ui.page;
    await page.goto(`${ui.base}/console/workflows/deploy`);
    await page.waitForSelector('.graph[data-draw-ms] .node');
    const nodes = await page.$$eval('.graph .node', (els: PageElement[]) =>
      els.map((n) => [n.getAttribute('data-step'), n.getAttribute('data-kind'), n.getAttribute('data-plugin')].join(' ')),
    );
    assert.deepEqual(nodes.sort(), [
      'call module http-request',
      'check decider conditional',
      'hold wait signal-wait',
      'note module log',
      'rollback module code-exec',
      'ship module sub-workflow',
      'start trigger manual',
    ]);
    const icons: string[] = [];
    for (const step of ['call', 'check', 'hold', 'note', 'rollback', 'ship', 'start'])
      icons.push(`${step}:${await page.getAttribute(`.graph .node[data-step=${step}] .icon`, 'data-icon')}`);
    assert.deepEqual(icons, ['call:globe', 'check:branch', 'hold:bell', 'note:lines', 'rollback:code', 'ship:nested', 'start:play']);
    assert.deepEqual(await page.$$eval('.graph .edge-label', (els: PageElement[]) => els.map((e) => e.textContent).sort()), [
      'false',
      'true',
    ]);
    assert.match((await page.getAttribute('.graph', 'class')) ?? '', /\bcompact\b/);
    // Every node says what it is and its state to assistive technology.
    assert.equal(
      await page.getAttribute('.graph .node[data-step=call]', 'aria-label'),
      'Step call (Call the deploy API), module http-request, status none',
    );
  });

  it("opens a step's definition from the graph: templates and the secret reference as written, never the secret", async () => {
    const page = ui.page;
    await page.click('.graph .node[data-step=call]');
    await page.waitForSelector('[data-step-definition=call]');
    const panel = (await page.textContent('[data-step-definition=call]')) ?? '';
    assert.match(panel, /Bearer \$\{\{ secrets\.DEPLOY_TOKEN \}\}/);
    assert.match(panel, /https:\/\/deploy\.example\.test\/\$\{\{ workflow\.inputs\.who \}\}/);
    assert.match(panel, /http-request/);
    assert.equal(await page.textContent('[data-step-definition=call] [data-field=dependsOn]'), 'start');
    assert.match((await page.textContent('[data-step-definition=call] [data-field=settings]')) ?? '', /timeout20s[\s\S]*maxRetries/);
    assert.equal(await page.textContent('[data-step-definition=call] .secret-ref'), '${{ secrets.DEPLOY_TOKEN }}');
    // The plugin's description comes from the catalog.
    await page.waitForFunction(() => (document.querySelector('[data-step-definition=call] .plugin-description')?.textContent ?? '') !== '');
    assert.doesNotMatch(await page.content(), new RegExp(SECRET_VALUE));
    assert.match(page.url(), /step=call/);
    await showcase(page, 'workflow');
  });

  it('moves between connected steps with the keyboard; Enter opens the focused one', async () => {
    const page = ui.page;
    await page.goto(`${ui.base}/console/workflows/deploy`);
    await page.waitForSelector('.graph[data-draw-ms] .node');
    // One tab stop: the first step.
    assert.deepEqual(await page.$$eval('.graph .node[tabindex="0"]', (els: PageElement[]) => els.map((e) => e.getAttribute('data-step'))), [
      'start',
    ]);
    await page.focus('.graph .node[data-step=start]');
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('data-step') ?? null);
    const press = async (key: string) => {
      await page.keyboard.press(key);
      return focused();
    };
    const next = await press('ArrowRight');
    assert.ok(next === 'call' || next === 'note', String(next));
    // ↑/↓ move within the column (call and note both follow start).
    const sibling = async (from: string) => ((await press('ArrowDown')) !== from ? focused() : press('ArrowUp'));
    const other = await sibling(String(next));
    assert.equal(other, next === 'call' ? 'note' : 'call');
    if (other === 'call') assert.equal(await sibling('call'), 'note');
    assert.equal(await press('ArrowRight'), 'hold');
    // Nothing follows hold: → stays.
    assert.equal(await press('ArrowRight'), 'hold');
    assert.equal(await press('ArrowLeft'), 'note');
    // Keyboard focus shows the ring (on the focused step).
    assert.ok(await page.evaluate(() => document.querySelector('.graph-svg:has(.node:focus-visible)') !== null));
    assert.equal(
      await page.getAttribute('.graph .focus-ring', 'transform'),
      await page.getAttribute('.graph .node[data-step=note]', 'transform'),
    );
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-step-definition=note]');
    assert.match((await page.textContent('[data-step-definition=note]')) ?? '', /deploying for \$\{\{ workflow\.inputs\.who \}\}/);
    assert.equal(await page.getAttribute('.graph .node[data-step=note]', 'aria-pressed'), 'true');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press(' ');
    await page.waitForSelector('[data-step-definition=hold]');
  });

  it('runs from a form of the declared inputs: a required input left empty starts nothing', async () => {
    const page = ui.page;
    const executions = async () =>
      (await org.auth(env.t.request.get(`/workflows/executions?workflowId=${deployId}&limit=1`))).body.total as number;
    const before = await executions();
    await page.goto(`${ui.base}/console/workflows/deploy`);
    await page.waitForSelector('[data-action=run]');
    assert.equal(await page.inputValue('input[name="input.count"]'), '2');
    assert.equal(await page.getAttribute('input[name="input.who"]', 'aria-required'), 'true');
    assert.deepEqual(await page.$$eval('select[name="input.color"] option', (els: PageElement[]) => els.map((e) => e.textContent)), [
      '—',
      'red',
      'blue',
    ]);
    await page.fill('input[name="input.who"]', '   ');
    await page.click('[data-action=run]');
    await page.waitForSelector('[data-run-error]');
    assert.match((await page.textContent('[data-run-error]')) ?? '', /Fill in the required input: who/);
    assert.equal(await page.getAttribute('input[name="input.who"]', 'aria-invalid'), 'true');
    // Invalid JSON in an object input is shown at the field.
    await page.fill('input[name="input.who"]', 'ada');
    await page.fill('textarea[name="input.extra"]', '{nope');
    await page.click('[data-action=run]');
    await page.waitForSelector('[data-input=extra] .field-error:text("extra is not valid JSON.")');
    assert.equal(await executions(), before, 'nothing started');

    // The JSON view holds what the form holds, and refuses an empty required string as the form does.
    await page.fill('textarea[name="input.extra"]', '{"ticket": 7}');
    await page.selectOption('select[name="input.color"]', { label: 'blue' });
    await page.check('input[name="input.loud"]');
    assert.equal(await page.isHidden('textarea[name=inputs]'), true);
    await page.click('[data-action=inputs-json]');
    assert.equal(await page.isHidden('input[name="input.who"]'), true);
    assert.deepEqual(JSON.parse(await page.inputValue('textarea[name=inputs]')), {
      who: 'ada',
      count: 2,
      loud: true,
      color: 'blue',
      extra: { ticket: 7 },
    });
    await page.fill('textarea[name=inputs]', '{"who": ""}');
    await page.click('[data-action=run]');
    await page.waitForSelector('[data-run-error]:text("Fill in the required inputs: who.")');
    assert.equal(await executions(), before, 'nothing started');
    await page.fill('textarea[name=inputs]', '{"who": "grace", "count": 3}');
    await page.click('[data-action=inputs-json]');
    assert.equal(await page.inputValue('input[name="input.who"]'), 'grace');
    assert.equal(await page.inputValue('input[name="input.count"]'), '3');

    await page.click('[data-action=run]');
    await page.waitForURL(/\/console\/executions\/exec_/);
    const id = new URL(page.url()).pathname.split('/').pop()!;
    const started = await org.auth(env.t.request.get(`/workflows/executions/${id}`));
    assert.equal(started.status, 200);
    assert.equal(await executions(), before + 1);
  });

  it("says what an alias's state means: latest follows the newest revision, manual triggers run on request", async () => {
    const page = ui.page;
    await page.goto(`${ui.base}/console/workflows/deploy`);
    await page.waitForSelector('tr[data-alias=latest]');
    assert.match((await page.textContent('tr[data-alias=latest] [data-note=latest]')) ?? '', /follows the newest revision \(#1\)/);
    assert.equal(await page.getAttribute('tr[data-alias=latest] .badge', 'data-state'), 'inactive');
    assert.equal(await page.textContent('tr[data-alias=latest] [data-trigger=start]'), 'start (manual): runs on request');
    assert.match((await page.textContent('[data-note=state]')) ?? '', /works whatever the state/);
  });

  it('lays out and draws a 1,000-step graph (times printed)', async () => {
    const page = ui.page;
    await publish(env, org, thousandSteps());
    await page.goto(`${ui.base}/console/workflows/thousand`);
    await page.waitForSelector('.graph[data-draw-ms]', { timeout: 60_000 });
    const times = await page.$eval('.graph', (g) => ({ layout: g.getAttribute('data-layout-ms'), draw: g.getAttribute('data-draw-ms') }));
    console.log(`    1,000-step graph: layout ${times.layout} ms, layout and first draw ${times.draw} ms`);
    assert.equal(await page.$$eval('.graph .node', (nodes) => nodes.length), 1000);
    assert.doesNotMatch((await page.getAttribute('.graph', 'class')) ?? '', /compact/);
    // Keyboard focus follows the edges here too, panning the view to the focused step.
    await page.focus('.graph .node[data-step=s0]');
    await page.keyboard.press('ArrowRight');
    // s0 feeds s1, s2 and s3: → goes to the one nearest in height.
    assert.match((await page.evaluate(() => document.activeElement?.getAttribute('data-step') ?? null)) ?? '', /^s[123]$/);
  });

  it('lists the workflows by folder, with counts', async () => {
    const page = ui.page;
    for (const [key, path] of [
      ['invoices', '/team/payments'],
      ['refunds', '/team/payments'],
      ['nightly-report', '/ops'],
    ]) {
      await publish(env, org, { ...tour(key), name: key.replace(/-/g, ' ').replace(/^./, (ch) => ch.toUpperCase()), path });
    }
    await page.goto(`${ui.base}/console/workflows`);
    await page.waitForSelector('table.workflows tr[data-workflow]');
    assert.equal(await page.textContent('.folders a:text("team")'), 'team(3)');
    assert.equal(await page.textContent('.folders a:text("All folders")'), 'All folders(5)');
    await showcase(page, 'workflows');
  });

  it('finds config entries kept in sub-folders from /', async () => {
    const page = ui.page;
    for (const [name, path, secret] of [
      ['REGION', '/team', false],
      ['DEPLOY_URL', '/team/deploys', false],
      ['PAYMENTS_KEY', '/team/payments', true],
    ] as const) {
      const res = await org
        .auth(env.t.request.post('/workflows/config'))
        .send({ name, value: `${name.toLowerCase()}-value`, secret, path });
      assert.equal(res.status, 201, res.text);
    }
    await page.goto(`${ui.base}/console/config`);
    await page.waitForSelector('table.config.beneath');
    assert.deepEqual(
      await page.$$eval('table.config.beneath tbody tr', (rows: PageElement[]) =>
        rows.map((r) => `${r.getAttribute('data-path')} ${r.getAttribute('data-entry')}`),
      ),
      ['/team REGION', '/team/deploys DEPLOY_URL', '/team/payments PAYMENTS_KEY'],
    );
    // The root's own entry stays in the main table; the folders show their subtree counts.
    assert.ok(await page.$('table.config:not(.beneath) tr[data-entry=DEPLOY_TOKEN]'));
    assert.equal(await page.textContent('.config-folders [data-folder="/team"]'), 'team(3)');
    assert.doesNotMatch(await page.content(), /payments_key-value|sk-live-workflow-page-canary/);
    await showcase(page, 'config');

    await page.click('.config-folders [data-folder="/team"]');
    await page.waitForSelector('table.config:not(.beneath) tr[data-entry=REGION]');
    assert.equal(await page.$$eval('table.config.beneath tbody tr', (rows) => rows.length), 2);

    await page.goto(`${ui.base}/console/config?path=/nowhere`);
    await page.waitForSelector('.state.empty');
    assert.equal(await page.textContent('.state.empty'), 'No entries in /nowhere or beneath it.');
  });
});
