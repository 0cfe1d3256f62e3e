/**
 * The console's administration pages in a real browser against the real app:
 * accounts, a user's grants, an administrator granting a role (the API then lets
 * the user in), a bulk grant whose one bad item shows its cause while the others
 * are granted after, what a user who may not read accounts sees, and a service
 * specification whose attribute schema compares two fields through `$data`,
 * rendered as a form that flags a violating value as it is typed. Timings are
 * printed, not asserted.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { grantRole } from '../support/grants';
import { showcase, useConsole } from './support';

const replicasSchema = {
  type: 'object',
  required: ['minReplicas', 'maxReplicas'],
  properties: {
    minReplicas: { type: 'integer', minimum: 1, description: 'Instances kept running at all times.' },
    maxReplicas: { type: 'integer', minimum: { $data: '1/minReplicas' }, maximum: 50, description: 'Upper bound when scaling out.' },
    size: { type: 'string', enum: ['small', 'medium', 'large'], description: 'Machine size.' },
    public: { type: 'boolean', description: 'Reachable from the internet.' },
    regions: { type: 'array', items: { type: 'string', pattern: '^[a-z]+-[a-z]+-[0-9]$' }, description: 'Cloud regions.' },
    network: {
      type: 'object',
      description: 'Ports the service listens on.',
      properties: { port: { type: 'integer', minimum: 1, maximum: 65535 }, name: { type: 'string', minLength: 3, maxLength: 20 } },
    },
  },
};

describe('console administration pages in a real browser', function () {
  this.timeout(120_000);
  const ui = useConsole({ withWorker: false });
  const { env, org } = ui;
  let base: string;
  let page: Page;
  const accounts: number[] = [];
  let target: string;
  before(async () => {
    ({ base, page } = ui);
    for (const name of ['Payments', 'Search', 'Platform']) {
      const res = await org.auth(env.t.request.post('/account')).send({ name, organization_id: Number(org.id) });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      accounts.push(res.body.id as number);
    }
    // A person of the organization with no grant yet.
    ({ userId: target } = await grantRole(env.db, org.id, null));
  });

  const accountNrn = (i: number) => `organization=${org.id}:account=${accounts[i]}`;
  const asTarget = async () => env.t.token({ organizationId: org.id, userId: target });

  it('answers the console the administration permissions, and admin field errors, over HTTP', async () => {
    const res = await env.t.request
      .get(`/console/session/permissions?nrn=organization=${org.id}`)
      .set('Authorization', `Bearer ${org.token}`);
    assert.equal(res.status, 200);
    for (const p of ['account:read', 'grant:write', 'service_specification:write']) assert.ok(res.body.permissions.includes(p), p);
    const spec = await org.auth(env.t.request.post('/service_specification')).send({
      name: 'Bad values',
      visible_to: [`organization=${org.id}`],
      attributes: { schema: replicasSchema, values: { minReplicas: 3, maxReplicas: 2 } },
    });
    assert.equal(spec.status, 400);
    assert.equal(spec.body.statusCode, 400);
    assert.deepEqual(spec.body.errors, [{ path: '/attributes/values/maxReplicas', message: 'must be >= 3' }]);
  });

  it('shows the Administration link to an administrator, the accounts and an account with its NRN', async () => {
    await page.goto(`${base}/console/`);
    await page.waitForSelector('header .admin-link[data-admin=yes] a');
    const started = Date.now();
    await page.click('header a:text("Administration")');
    await page.waitForSelector('table.accounts tbody tr');
    console.log(`    accounts page: ${Date.now() - started} ms`);
    const names = await page.$$eval('table.accounts tbody tr td:first-child', (cells: PageElement[]) =>
      cells.map((cell) => cell.textContent),
    );
    assert.deepEqual([...names].sort(), ['Payments', 'Platform', 'Search']);
    assert.match((await page.textContent('.pager')) ?? '', /1–3 of 3/);
    await showcase(page, 'admin-accounts');

    await page.click('table.accounts a:text("Search")');
    await page.waitForSelector('table.fields [data-nrn]');
    assert.equal(await page.textContent('table.fields [data-nrn]'), accountNrn(1));
    assert.equal(await page.textContent('h1'), 'Search');
  });

  it('an administrator grants a role in the browser, and the API then lets the user in', async () => {
    const before = await env.t.request.get(`/account/${accounts[0]}`).set('Authorization', `Bearer ${await asTarget()}`);
    assert.equal(before.status, 404);

    await page.goto(`${base}/console/admin/users`);
    await page.click(`table.users tr[data-user="${target}"] a`);
    await page.waitForSelector('section.grants .state.empty');
    await page.waitForSelector('form.grant-form');
    await page.selectOption('tr.grant-item[data-item="0"] select[name=role_slug]', 'viewer');
    await page.fill('tr.grant-item[data-item="0"] input[name=nrn]', accountNrn(0));
    await page.click('[data-action=grant]');
    await page.waitForSelector('tr.grant-item[data-item="0"][data-result=granted]');
    await page.waitForSelector(`table.grants tr[data-role=viewer][data-nrn="${accountNrn(0)}"]`);

    const after = await env.t.request.get(`/account/${accounts[0]}`).set('Authorization', `Bearer ${await asTarget()}`);
    assert.equal(after.status, 200);
    assert.equal(after.body.name, 'Payments');
  });

  it('a bulk grant with bad items shows each one’s cause next to it; the good items are then granted', async () => {
    await page.goto(`${base}/console/admin/users/${target}`);
    await page.waitForSelector('table.grants tr[data-role=viewer]');
    for (let i = 0; i < 3; i += 1) await page.click('[data-action=add-item]');
    const item = (i: number) => `tr.grant-item[data-item="${i}"]`;
    await page.selectOption(`${item(0)} select`, 'developer');
    await page.fill(`${item(0)} input[name=nrn]`, accountNrn(1));
    // The ci role is for service accounts only: this user is a person.
    await page.selectOption(`${item(1)} select`, 'ci');
    await page.fill(`${item(1)} input[name=nrn]`, `organization=${org.id}`);
    await page.selectOption(`${item(2)} select`, 'viewer');
    await page.fill(`${item(2)} input[name=nrn]`, accountNrn(2));
    // Granted in the test before.
    await page.selectOption(`${item(3)} select`, 'viewer');
    await page.fill(`${item(3)} input[name=nrn]`, accountNrn(0));
    await page.click('[data-action=grant]');

    await page.waitForSelector(`${item(1)}[data-result=failed]`);
    assert.equal(await page.getAttribute(`${item(1)} [data-code]`, 'data-code'), 'RESOURCE_GRANTS.ROLE_USER_TYPE_RESTRICTED');
    assert.match((await page.textContent(`${item(1)} .grant-result`)) ?? '', /cannot be granted to a person/);
    assert.equal(await page.getAttribute(`${item(3)}[data-result=failed] [data-code]`, 'data-code'), 'RESOURCE_GRANTS.DUPLICATE_GRANT');
    assert.match((await page.textContent(`${item(3)} .grant-result`)) ?? '', /already has role "viewer"/);
    for (const i of [0, 2]) assert.equal(await page.getAttribute(item(i), 'data-result'), 'not-created');
    await showcase(page, 'admin-grants');
    // All or nothing: the API created neither of the good items.
    const held = await org.auth(env.t.request.get(`/user/${target}/grant`));
    assert.deepEqual(
      held.body.results.map((g: { role_slug: string }) => g.role_slug),
      ['viewer'],
    );

    await page.click('[data-action=grant-others]');
    await page.waitForFunction(() => document.querySelectorAll('tr.grant-item[data-result=granted]').length === 2);
    assert.equal(await page.$$eval('tr.grant-item', (rows) => rows.length), 2);
    await page.waitForSelector(`table.grants tr[data-role=developer][data-nrn="${accountNrn(1)}"]`);
    const granted = await org.auth(env.t.request.get(`/user/${target}/grant`));
    assert.deepEqual(
      granted.body.results.map((g: { role_slug: string; nrn: string }) => `${g.role_slug} ${g.nrn}`).sort(),
      [`developer ${accountNrn(1)}`, `viewer ${accountNrn(0)}`, `viewer ${accountNrn(2)}`].sort(),
    );

    // Revoke from the grants table.
    await page.click(`table.grants tr[data-role=viewer][data-nrn="${accountNrn(2)}"] [data-action=revoke]`);
    await page.waitForFunction((nrn) => document.querySelector(`table.grants tr[data-nrn="${nrn}"]`) === null, accountNrn(2));
    const revoked = await org.auth(env.t.request.get(`/user/${target}/grant`));
    assert.equal(revoked.body.results.length, 2);
  });

  it('shows a user who may not read accounts no Administration link, and the 403 state on its URL', async () => {
    // A viewer on one namespace only: inside the organization, but not on its accounts.
    const { userId } = await grantRole(env.db, org.id, 'viewer', `${accountNrn(0)}:namespace=7`);
    const other = await launchBrowser();
    try {
      const p = other.page;
      await ui.signIn(p, userId);
      await p.waitForSelector('header .admin-link[data-admin=no]', { state: 'attached' });
      assert.equal(await p.$('header a:text("Administration")'), null);
      await p.goto(`${base}/console/admin/accounts`);
      await p.waitForSelector('#app[data-ready]');
      await p.waitForSelector('.state.error[data-status="403"]');
      assert.match((await p.textContent('.state.error')) ?? '', /You may not see or do this/);
    } finally {
      await other.close();
    }
  });

  it('renders a specification’s attribute schema as a form and flags a $data violation live; the API checks on save', async () => {
    const created = await org.auth(env.t.request.post('/service_specification')).send({
      name: 'Web service',
      visible_to: [`organization=${org.id}`],
      attributes: { schema: replicasSchema, values: { minReplicas: 2, maxReplicas: 4, size: 'medium', regions: ['us-east-1'] } },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;

    await page.goto(`${base}/console/admin/specifications`);
    await page.click(`tr[data-specification="${id}"] a`);
    const max = '#attributes-form .field[data-path="/maxReplicas"]';
    await page.waitForSelector(max);
    assert.equal(await page.textContent(`${max} [data-constraints]`), '≥ value of minReplicas · ≤ 50');
    assert.equal(await page.inputValue(`${max} input`), '4');
    assert.equal(await page.inputValue('#attributes-form .field[data-path="/size"] select'), 'medium');
    assert.ok(await page.$('#attributes-form fieldset[data-path="/network"] .field[data-path="/network/port"] input[type=number]'));
    assert.ok(await page.$('#attributes-form .field[data-path="/minReplicas"] .required'));

    await page.fill(`${max} input`, '1');
    await page.waitForSelector(`${max}.invalid`);
    assert.equal(await page.textContent(`${max} .field-error`), 'must be ≥ value of minReplicas (2)');
    // Raising the other field clears it: the comparison follows the sibling's current value.
    await page.fill('#attributes-form .field[data-path="/minReplicas"] input', '1');
    await page.waitForFunction((sel) => !document.querySelector(sel)?.className?.includes('invalid'), max);
    await page.fill('#attributes-form .field[data-path="/minReplicas"] input', '3');
    await page.waitForSelector(`${max}.invalid`);
    await page.evaluate(() => (window.scrollTo as (x: number, y: number) => void)(0, 0));
    await showcase(page, 'admin-specification');

    // The API is the authority: saving the violating value answers 400 and its field error lands on the field.
    await page.click('[data-action=save-values]');
    await page.waitForSelector('.save-status .state.error[data-status="400"]');
    assert.match((await page.textContent(`${max} .field-error`)) ?? '', /must be >= 3/);
    await page.fill(`${max} input`, '6');
    await page.click('[data-action=save-values]');
    await page.waitForSelector('.save-status .saved');
    const saved = await org.auth(env.t.request.get(`/service_specification/${id}`));
    assert.deepEqual(saved.body.attributes.values, { minReplicas: 3, maxReplicas: 6, size: 'medium', regions: ['us-east-1'] });
    // Its default actions' parameter schemas are rendered too (create, update, delete).
    assert.equal(await page.$$eval('details.action-specification', (d) => d.length), 3);
  });

  it('renders a provider specification’s settings schema: secrets as password fields, $data lengths in words', async () => {
    const created = await org.auth(env.t.request.post('/provider_specification')).send({
      name: 'Private registry',
      visible_to: [`organization=${org.id}`],
      schema: {
        type: 'object',
        required: ['url', 'token'],
        properties: {
          url: { type: 'string', pattern: '^https://' },
          token: { type: 'string', secret: true, minLength: { $data: '1/tokenLength' } },
          tokenLength: { type: 'integer', minimum: 8 },
        },
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await page.goto(`${base}/console/admin/specifications`);
    await page.click(`tr[data-provider-specification="${created.body.id as string}"] a`);
    const token = '#settings-form .field[data-path="/token"]';
    await page.waitForSelector(`${token} input[type=password]`);
    assert.equal(await page.textContent(`${token} [data-constraints]`), 'length ≥ value of tokenLength');
    await page.fill('#settings-form .field[data-path="/tokenLength"] input', '10');
    await page.fill(`${token} input`, 'short');
    await page.fill('#settings-form .field[data-path="/url"] input', 'http://registry');
    await page.waitForSelector(`${token}.invalid`);
    assert.equal(await page.textContent(`${token} .field-error`), 'length must be ≥ value of tokenLength (10)');
    assert.equal(await page.textContent('#settings-form .field[data-path="/url"] .field-error'), 'must match ^https://');
    // Nothing to save: a provider specification holds no values.
    assert.equal(await page.$('[data-action=save-values]'), null);
  });
});
