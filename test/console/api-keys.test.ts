/**
 * The console's API keys page in a real browser: the signed-in user's keys,
 * masked (the value never reaches the page), reached from the administration
 * tabs, and revoked with a click (the API then answers 404 for it).
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { showcase, useConsole } from './support';

describe('console: API keys', function () {
  this.timeout(120_000);
  const ui = useConsole({ withWorker: false });
  const { env, org } = ui;
  let page: Page;
  before(() => {
    page = ui.page;
  });

  it('lists the user’s keys masked and revokes one', async () => {
    const created = await org
      .auth(env.t.request.post('/api_key'))
      .send({ name: 'deploy pipeline', grants: [{ nrn: `organization=${org.id}`, role_slug: 'viewer' }] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const value: string = created.body.api_key;

    await page.goto(`${ui.base}/console/admin/accounts`);
    await page.click('nav.admin-tabs a:text("API keys")');
    const row = `table.api-keys tr[data-api-key="${created.body.id}"]`;
    await page.waitForSelector(row);
    assert.match((await page.textContent(row)) ?? '', /deploy pipeline.*npk_.*viewer on organization=/s);
    assert.ok(!(await page.content()).includes(value.slice(13)), 'the key’s value is not on the page');
    await showcase(page, 'admin-api-keys');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click(`${row} button[data-action=revoke]`);
    await page.waitForSelector(row, { state: 'detached' });
    assert.equal((await org.auth(env.t.request.get(`/api_key/${created.body.id}`))).status, 404);
  });
});
