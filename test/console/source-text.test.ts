/**
 * Issue 38 in a real browser against the real app: the editor opens on the
 * text the author published (a YAML comment, `dependsOn`, the author's order),
 * publishes what was typed (the server keeps it byte for byte), and the
 * revision diff compares those texts. A workflow managed from git says so on
 * its pages and asks before a browser edit is published.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { useConsole } from './support';

const AUTHORED = [
  '# Owned by the payments team.',
  'name: Refund flow',
  'path: /source-text',
  'steps:',
  '  # Starts by hand.',
  '  start: {type: trigger, pluginType: manual}',
  '  note:',
  '    type: module',
  '    pluginType: log',
  '    config: {message: "refund requested"}   # what the log says',
  '    dependsOn: [start]',
  '',
].join('\n');

const MANAGED = AUTHORED.replace(
  'path: /source-text\n',
  'path: /source-text\nmetadata:\n  managedBy: {kind: git, repository: git.example/acme/flows, path: flows/refund.yaml}\n',
);

describe('console: the author text is kept (editor and diff)', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  let base: string;
  let page: Page;
  before(() => {
    ({ base, page } = ui);
  });

  const putYaml = (key: string, text: string) =>
    org
      .auth(env.t.request.put(`/workflows/definitions/${key}`))
      .set('Content-Type', 'application/yaml')
      .send(text);
  const sourceOf = async (key: string, n: number) =>
    (await org.auth(env.t.request.get(`/workflows/definitions/${key}/revisions/${n}/source`)).buffer(true)).text;
  const settled = (p: Page) => p.waitForSelector('.editor-status:not([data-lint=pending])', { timeout: 20_000 });
  const lines = (p: Page) => p.$$eval('.cm-content .cm-line', (all: PageElement[]) => all.map((line) => line.textContent));
  /** Puts the cursor at the start of the first editor line that is exactly `line`. */
  const cursorAtStartOf = async (p: Page, line: string) => {
    const index = (await lines(p)).indexOf(line);
    assert.ok(index >= 0, `no editor line "${line}"`);
    await p.locator('.cm-content .cm-line').nth(index).click();
    await p.keyboard.press('End');
    for (const _ of [1, 2]) await p.keyboard.press('Home');
  };

  it('opens the published YAML with its comments, publishes what was typed, and diffs the two texts', async () => {
    assert.equal((await putYaml('refund-flow', AUTHORED)).status, 201);
    await page.goto(`${base}/console/workflows/refund-flow/edit`);
    await page.waitForSelector('.cm-editor .cm-content');
    await settled(page);
    // The author's text, not the server's normalized form (no `connections`, the steps in the author's order).
    assert.deepEqual(await lines(page), AUTHORED.split('\n'));
    assert.equal(await page.$('[data-source=rendered]'), null);

    // A comment and a changed message, typed in the browser.
    await cursorAtStartOf(page, '  note:');
    await page.keyboard.insertText('  # Added in the browser.\n');
    await cursorAtStartOf(page, '    config: {message: "refund requested"}   # what the log says');
    await page.keyboard.press('End');
    for (const _ of '"}   # what the log says') await page.keyboard.press('ArrowLeft');
    await page.keyboard.insertText(', then paid');
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    await page.fill('#release-notes', 'Says when it is paid');
    await page.click('[data-action=publish]');
    await page.waitForURL(/\/console\/workflows\/refund-flow\?revision=2$/);

    const typed = AUTHORED.replace('  note:\n', '  # Added in the browser.\n  note:\n').replace(
      'refund requested"}',
      'refund requested, then paid"}',
    );
    assert.equal(await sourceOf('refund-flow', 2), typed, 'the server keeps what was typed, byte for byte');
    assert.equal(await sourceOf('refund-flow', 1), AUTHORED);
    const revision = await org.auth(env.t.request.get('/workflows/definitions/refund-flow/revisions/2'));
    assert.equal(revision.body.releaseNotes, 'Says when it is paid');

    // Opened again: the text as typed.
    await page.goto(`${base}/console/workflows/refund-flow/edit`);
    await page.waitForSelector('.cm-editor .cm-content');
    assert.deepEqual(await lines(page), typed.split('\n'));

    // The diff compares the two texts: the comment is a changed line of revision 2.
    await page.goto(`${base}/console/workflows/refund-flow/diff?from=1&to=2`);
    await page.waitForSelector('.cm-mergeView');
    assert.equal(await page.getAttribute('.diff-text', 'data-compared'), 'sources');
    const changed = await page.$$eval('.cm-merge-b .cm-changedLine', (all: PageElement[]) => all.map((line) => line.textContent));
    assert.ok(changed.includes('  # Added in the browser.'), changed.join('|'));
    assert.ok(
      changed.some((line) => line?.includes('then paid')),
      changed.join('|'),
    );
    assert.ok(
      (await page.$$eval('.cm-merge-a .cm-line', (all: PageElement[]) => all.map((l) => l.textContent))).includes(
        '# Owned by the payments team.',
      ),
    );
  });

  it('a workflow managed from git says so, and asks before a browser edit is published', async () => {
    assert.equal((await putYaml('refund-managed', MANAGED)).status, 201);
    await page.goto(`${base}/console/workflows/refund-managed`);
    await page.waitForSelector('.managed-banner');
    assert.match((await page.textContent('.managed-banner')) ?? '', /Managed from git\..*git\.example\/acme\/flows, flows\/refund\.yaml/);

    await page.goto(`${base}/console/workflows/refund-managed/edit`);
    await page.waitForSelector('.cm-editor .cm-content');
    await settled(page);
    assert.match((await page.textContent('.managed-banner')) ?? '', /Publishing asks first/);
    await cursorAtStartOf(page, '  note:');
    await page.keyboard.insertText('  # An edit in the browser.\n');
    await settled(page);

    // Declined: nothing is published, the edit stays in the editor.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.click('[data-action=publish]');
    assert.match(asked[0] ?? '', /managed from git \(git\.example\/acme\/flows, flows\/refund\.yaml\).*Publish anyway\?/);
    assert.match(page.url(), /\/refund-managed\/edit$/);
    assert.ok((await lines(page)).includes('  # An edit in the browser.'));
    assert.equal(await sourceOf('refund-managed', 1), MANAGED);

    // Accepted: published as typed (a comment only: the newest revision's text is replaced).
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('[data-action=publish]');
    await page.waitForURL(/\/console\/workflows\/refund-managed\?revision=1$/);
    assert.equal(await sourceOf('refund-managed', 1), MANAGED.replace('  note:\n', '  # An edit in the browser.\n  note:\n'));
  });
});
