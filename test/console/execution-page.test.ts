/**
 * The console's execution page in a real browser: the run's facts (inputs,
 * outputs, duration, trigger, revision), its timeline (one row per step run
 * with a bar, a retried step's attempts, the failed one coloured), the step
 * panel with the config as the run resolved it and its secret masked (the
 * canary never reaches the page), a failed http step's error line in the logs,
 * and no signal form on an ended run. Timings are printed, not asserted.
 *
 *   start ─▶ call (http, Bearer secret) ─▶ flaky (http, 503 twice, retried) ─▶ note (log)
 *   start ─▶ boom (http, 500)                                    [failing run]
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { execute, finished, publish, waitFor } from '../executions-api/support';
import { useLocalServer } from '../support/local-server';
import { showcase, useConsole } from './support';

describe('console: the execution page', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  const canary = `exec-page-canary-${randomBytes(12).toString('hex')}`;
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    res.setHeader('content-type', 'application/json');
    if (path === '/flaky') {
      res.statusCode = hits[path] < 3 ? 503 : 200;
      return void res.end(JSON.stringify({ attempt: hits[path] }));
    }
    if (path === '/boom') {
      res.statusCode = 500;
      return void res.end(JSON.stringify({ oops: true }));
    }
    // Echoes what it was sent: the worst case for the secret (the engine scrubs it from the outputs).
    res.end(JSON.stringify({ ok: true, seen: req.headers.authorization ?? null }));
  });
  let page: Page;
  let base: string;
  let okRun: string;
  let failedRun: string;

  before(async () => {
    ({ page, base } = ui);
    const created = await org
      .auth(env.t.request.post('/workflows/config'))
      .send({ name: 'EXEC_PAGE_TOKEN', value: canary, secret: true, path: '/' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await publish(env, org, {
      name: 'Execution page',
      key: 'exec-page',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: { inputs: { who: { type: 'string', required: true } } } },
        call: {
          type: 'module',
          pluginType: 'http-request',
          config: {
            url: `${server.base}/hello?who=\${{ workflow.inputs.who }}`,
            headers: { Authorization: 'Bearer ${{ secrets.EXEC_PAGE_TOKEN }}' },
          },
          dependsOn: ['start'],
        },
        flaky: {
          type: 'module',
          pluginType: 'http-request',
          config: { url: `${server.base}/flaky` },
          dependsOn: ['call'],
          errorHandling: { retryPolicy: { maxAttempts: 3, initialInterval: '100ms', backoffStrategy: 'exponential', jitter: 0.3 } },
        },
        note: { type: 'module', pluginType: 'log', config: { message: 'hello ${{ workflow.inputs.who }}' }, dependsOn: ['flaky'] },
      },
      outputs: { greeting: 'hello ${{ workflow.inputs.who }}', flakyStatus: '${{ steps.flaky.outputs.statusCode }}' },
    });
    await publish(env, org, {
      name: 'Failing call',
      key: 'exec-page-fail',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: {} },
        boom: { type: 'module', pluginType: 'http-request', config: { url: `${server.base}/boom` }, dependsOn: ['start'] },
      },
    });
    okRun = await execute(env, org, 'exec-page', { inputs: { who: 'ada' } });
    failedRun = await execute(env, org, 'exec-page-fail');
    const [ok, failed] = await Promise.all([waitFor(env, org, okRun, finished), waitFor(env, org, failedRun, finished)]);
    assert.equal(ok.status, 'completed', JSON.stringify(ok));
    assert.equal(failed.status, 'failed', JSON.stringify(failed));
  });

  const open = async (id: string) => {
    const started = Date.now();
    await page.goto(`${base}/console/executions/${id}`);
    await page.waitForSelector('table.timeline tbody tr.step-row');
    console.log(`    execution page with its timeline: ${Date.now() - started} ms`);
  };
  const factText = (name: string) => page.textContent(`[data-fact="${name}"]`).then((t) => t ?? '');

  it('shows the run: inputs, outputs, duration, trigger, revision and who started it', async () => {
    await open(okRun);
    assert.match(await factText('inputs'), /who\s*ada/);
    assert.match(await factText('outputs'), /greeting\s*hello ada/);
    assert.match(await factText('outputs'), /flakyStatus\s*200/);
    assert.match(await factText('duration'), /\d+(\.\d)? (ms|s)$/, 'an ended run shows its exact duration');
    assert.doesNotMatch(await factText('duration'), /so far/);
    assert.match(await factText('trigger'), /manual \(trigger step start\)/);
    assert.match(await factText('revision'), /1 \(alias latest\)/);
    assert.match(await factText('created-by'), new RegExp(`user ${org.userId}`));
  });

  it('draws one timeline row per step run with a bar, and the attempts of the retried step', async () => {
    await open(okRun);
    const rows = await page.$$eval('table.timeline tr.step-row', (trs: PageElement[]) =>
      trs.map((tr) => ({ step: tr.getAttribute('data-step'), status: tr.getAttribute('data-status') })),
    );
    assert.deepEqual(
      rows.map((r) => r.step),
      ['start', 'call', 'flaky', 'note'],
    );
    assert.ok(
      rows.every((r) => r.status === 'completed'),
      JSON.stringify(rows),
    );
    const widths = await page.$$eval('table.timeline tr.step-row rect.bar', (bars: PageElement[]) =>
      bars.map((bar) => Number(bar.getAttribute('width'))),
    );
    assert.equal(widths.length, 4);
    assert.ok(
      widths.every((w) => w > 0),
      widths.join(),
    );
    const attempts = await page.$$eval('table.timeline tr.attempt-row[data-attempt-of="flaky#1"]', (trs: PageElement[]) =>
      trs.map((tr) => tr.getAttribute('data-status')),
    );
    assert.deepEqual(attempts, ['failed', 'failed', 'completed']);
    assert.equal(await page.$$eval('tr.attempt-row[data-status=failed] rect.bar.status-failed', (bars) => bars.length), 2);

    // A timeline row opens that step's panel, with its attempts and their errors.
    await page.click('tr.step-row[data-step=flaky] th button');
    await page.waitForSelector('[data-step-panel=flaky] table.attempts');
    const panel = (await page.textContent('[data-step-panel=flaky]')) ?? '';
    assert.match(panel, /Attempts \(3\)/);
    assert.match(panel, /HTTP_5XX: HTTP 503/);
    await showcase(page, 'execution', { fullPage: true });
  });

  it("shows a step's config as the run resolved it, the secret masked, and never the secret", async () => {
    await open(okRun);
    await page.click('tr.step-row[data-step=call] th button');
    await page.waitForSelector('[data-step-panel=call] [data-config=resolved]');
    const config = (await page.textContent('[data-step-panel=call] [data-config=resolved]')) ?? '';
    // Resolved: the input is in the URL; masked: the header shows where the secret went.
    assert.match(config, /\/hello\?who=ada/);
    assert.match(config, /"Authorization": "Bearer •••• secret"/);
    assert.equal(await page.$$eval('[data-step-panel=call] [data-config=resolved] mark.secret-mask', (marks) => marks.length), 1);
    assert.match((await page.textContent('[data-step-panel=call] [data-section=outputs]')) ?? '', /seen/);
    await page.waitForSelector('table.logs tbody tr');
    assert.equal((await page.content()).includes(canary), false, 'the page never holds the secret');
    // Nothing the page read held it either (the panel's API answers included).
    const answers = await page.evaluate(
      (paths) => Promise.all(paths.map((p) => fetch(p).then((r) => r.text()))),
      ['', '/steps', '/steps/call', '/logs', '/logs?stepId=call'].map((p) => `/workflows/executions/${okRun}${p}`),
    );
    for (const answer of answers) assert.equal(answer.includes(canary), false, answer);
    await page.$eval('.execution-body', (el) => (el as unknown as { scrollIntoView(): void }).scrollIntoView());
    await showcase(page, 'execution-step');
  });

  it('shows the error line of a failed http step in the logs, and the error of the run', async () => {
    await open(failedRun);
    await page.waitForSelector('tr.step-row[data-step=boom][data-status=failed] rect.bar.status-failed');
    assert.match(await factText('error'), /HTTP_5XX: HTTP 500/);
    await page.waitForSelector('table.logs tbody tr.level-error');
    const line = (await page.textContent('table.logs tbody tr.level-error')) ?? '';
    assert.match(line, /boom/);
    assert.match(line, /HTTP_5XX: HTTP 500 Internal Server Error/);
    assert.doesNotMatch((await page.textContent('.log-window')) ?? '', /No log entries yet/);
    // The step panel's logs are that step's only.
    await page.click('tr.step-row[data-step=boom] th button');
    await page.waitForSelector('[data-step-panel=boom] table.step-logs tr.level-error');
  });

  it('offers no signal form on an ended run', async () => {
    await open(okRun);
    await page.waitForSelector('section.signals .state');
    assert.equal(await page.$('form.signal-form'), null);
    assert.equal(await page.$('[data-action=deliver-signal]'), null);
  });

  it('follows a live run: an open bar while it waits, the duration ticking, then closed bars and no signal form', async () => {
    await publish(env, org, {
      name: 'Live wait',
      key: 'exec-page-wait',
      steps: {
        start: { type: 'trigger', pluginType: 'manual', config: {} },
        approval: { type: 'wait', pluginType: 'signal-wait', config: { signalName: 'approve', timeout: '2d' }, dependsOn: ['start'] },
        after: { type: 'module', pluginType: 'log', config: { message: 'approved' }, dependsOn: ['approval'] },
      },
    });
    const id = await execute(env, org, 'exec-page-wait');
    await waitFor(env, org, id, (body) => body.status === 'waiting');
    await open(id);
    await page.waitForSelector('tr.step-row[data-step=approval][data-status=waiting] rect.bar.open');
    assert.match(await factText('duration'), /so far$/);
    assert.match(await factText('outputs'), /not ended/);
    await page.waitForSelector('form.signal-form');
    // It ticks.
    const shown = await page.textContent('[data-fact=duration] dd');
    await page.waitForFunction((was) => document.querySelector('[data-fact=duration] dd')?.textContent !== was, shown);

    const sent = await org.auth(env.t.request.post(`/workflows/executions/${id}/signals/approve`)).send({ by: 'test' });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await page.waitForSelector('tr.step-row[data-step=after][data-status=completed]');
    await page.waitForSelector('tr.step-row[data-step=approval][data-status=completed] rect.bar:not(.open)');
    await page.waitForSelector('#execution-status [data-status=completed]');
    await page.waitForFunction(() => document.querySelector('form.signal-form') === null);
    assert.doesNotMatch(await factText('duration'), /so far/);
  });

  it('keeps a 200-step timeline quick (times reported)', async () => {
    await publish(env, org, {
      name: 'Long chain',
      key: 'exec-page-long',
      steps: Object.fromEntries(
        Array.from({ length: 210 }, (_, i) => [
          `s${i}`,
          i === 0
            ? { type: 'trigger', pluginType: 'manual', config: {} }
            : { type: 'module', pluginType: 'log', config: { message: `step ${i}` }, dependsOn: [`s${Math.floor((i - 1) / 2)}`] },
        ]),
      ),
    });
    const id = await execute(env, org, 'exec-page-long');
    const done = await waitFor(env, org, id, finished);
    assert.equal(done.status, 'completed');
    await open(id);
    await page.waitForFunction(() => document.querySelectorAll('table.timeline tr.step-row').length === 210);
    const started = Date.now();
    await page.click('tr.step-row[data-step=s150] th button');
    await page.waitForSelector('[data-step-panel=s150]');
    console.log(`    210-step timeline: a row opens its panel in ${Date.now() - started} ms`);
  });
});
