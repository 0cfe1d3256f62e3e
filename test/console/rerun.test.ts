/**
 * Re-run and retry from the console (issue 29), in a real browser against the real app:
 *
 *   start ─▶ count (http, counted) ─▶ note (log) ─▶ flaky (http: 500 on the first call) ─▶ after (log)
 *
 * "Retry from failed step" on the failed run opens the retry, which completes with start, count and note reused
 * (count's server called once in all); "Re-run" on it opens a re-run that runs every step again.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { execute, finished, publish, waitFor } from '../executions-api/support';
import { useLocalServer } from '../support/local-server';
import { showcase, useConsole } from './support';

describe('web console: re-run and retry from the failed step', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  const hits: Record<string, number> = {};
  const server = useLocalServer((req, res) => {
    const path = req.url ?? '/';
    hits[path] = (hits[path] ?? 0) + 1;
    res.setHeader('content-type', 'application/json');
    if (path === '/flaky' && hits[path] === 1) {
      res.statusCode = 500;
      return void res.end(JSON.stringify({ error: 'first call fails' }));
    }
    res.end(JSON.stringify({ n: hits[path] }));
  });

  const definition = () => ({
    name: 'Nightly export',
    key: 'nightly-export',
    steps: {
      start: { type: 'trigger', pluginType: 'manual', config: {} },
      count: { type: 'module', pluginType: 'http-request', config: { url: `${server.base}/count` }, dependsOn: ['start'] },
      note: { type: 'module', pluginType: 'log', config: { message: 'counted ${{ steps.count.outputs.body.n }}' }, dependsOn: ['count'] },
      flaky: { type: 'module', pluginType: 'http-request', config: { url: `${server.base}/flaky` }, dependsOn: ['note'] },
      after: { type: 'module', pluginType: 'log', config: { message: 'exported' }, dependsOn: ['flaky'] },
    },
  });

  const idInUrl = (p: Page) => decodeURIComponent(new URL(p.url()).pathname.split('/').pop() ?? '');
  const attribute = (p: Page, selector: string, name: string) => p.getAttribute(selector, name);

  it('retries a failed run from its failed step, then re-runs it, each opening the new execution', async () => {
    const { page, base } = ui;
    await publish(env, org, definition());
    const first = await execute(env, org, 'nightly-export', { inputs: { day: '2026-11-27' } });
    assert.equal((await waitFor(env, org, first, finished)).status, 'failed');

    await page.setViewportSize({ width: 1400, height: 900 });
    await page.goto(`${base}/console/executions/${first}`);
    await page.waitForSelector('#execution-status [data-status=failed]');
    await page.waitForSelector('[data-action=retry]');
    await page.waitForSelector('[data-action=rerun]');
    const clicked = Date.now();
    await page.click('[data-action=retry]');
    await page.waitForURL((url) => url.pathname.startsWith('/console/executions/exec_') && !url.pathname.endsWith(first));
    const retry = idInUrl(page);
    await page.waitForSelector('#execution-status [data-status=completed]', { timeout: 30_000 });
    console.log(`      retry completed on the page ${Date.now() - clicked} ms after the click`);
    await page.waitForSelector('[data-reused-steps]');
    assert.equal(await attribute(page, '[data-rerun-of]', 'data-rerun-of'), first);
    assert.match((await page.textContent('[data-rerun-of]')) ?? '', /^Retry of exec_/);
    const reused = (await attribute(page, '[data-reused-steps]', 'data-reused-steps'))?.split(',').sort();
    assert.deepEqual(reused, ['count', 'note', 'start']);
    assert.deepEqual(hits, { '/count': 1, '/flaky': 2 });
    // The step panel of a reused step says where its record comes from.
    await page.click('.graph .node[data-step=count]');
    assert.equal(await attribute(page, '[data-step-panel=count] [data-reused-from]', 'data-reused-from'), first);
    const record = await waitFor(env, org, retry, finished);
    assert.equal(record.rerunOf, first);
    assert.equal(record.rerunKind, 'retry');
    // A completed run offers a re-run, never a retry.
    await page.waitForSelector('[data-action=rerun]');
    assert.equal(await page.$('[data-action=retry]'), null);
    await page.waitForFunction(() => document.querySelectorAll('.graph .node[data-status=completed]').length === 5, undefined, {
      timeout: 30_000,
    });
    await showcase(page, 'retry');

    await page.click('[data-action=rerun]');
    await page.waitForURL((url) => url.pathname.startsWith('/console/executions/exec_') && !url.pathname.endsWith(retry));
    const rerun = idInUrl(page);
    assert.notEqual(rerun, first);
    await page.waitForSelector('#execution-status [data-status=completed]', { timeout: 30_000 });
    assert.equal(await attribute(page, '[data-rerun-of]', 'data-rerun-of'), retry);
    assert.match((await page.textContent('[data-rerun-of]')) ?? '', /^Re-run of exec_/);
    assert.equal(await page.$('[data-reused-steps]'), null);
    const again = await waitFor(env, org, rerun, finished);
    assert.equal(again.rerunKind, 'rerun');
    assert.deepEqual(again.inputs, { day: '2026-11-27' });
    assert.deepEqual(hits, { '/count': 2, '/flaky': 3 });
    // The link goes back to the execution it re-ran, which links its re-run.
    await page.click('[data-rerun-of] a');
    await page.waitForURL((url) => url.pathname.endsWith(retry));
    await page.waitForSelector(`[data-reruns="${rerun}"]`);
    // And the first links its retry.
    await page.goto(`${base}/console/executions/${first}`);
    await page.waitForSelector(`[data-reruns="${retry}"]`);
    assert.match((await page.textContent('[data-reruns]')) ?? '', /\(retry, completed\)/);
  });
});
