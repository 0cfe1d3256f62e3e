/**
 * The definition editor in a real browser against the real app: an author opens
 * a published workflow, types a step that depends on a step that does not exist
 * (underlined at its line, listed as a problem), fixes it (the underline goes,
 * the graph shows the new step), publishes with release notes (the workflow page
 * shows revision 2), and compares revisions 1 and 2 (the text diff marks the new
 * lines, the graph marks the step as added). Completion offers plugins after
 * `pluginType: `; a new workflow is published from the editor. No content
 * security policy violation happens throughout. The time from a keystroke to the
 * updated text and to the validation result in a 500-line definition is
 * printed, not asserted.
 *
 *   start ─▶ one ─▶ two          (revision 1)
 *   start ─▶ one ─▶ two
 *            └────▶ audit        (revision 2: audit added)
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { publish } from '../executions-api/support';
import { showcase, useConsole } from './support';

const small = (key: string) => ({
  name: `Edited ${key}`,
  key,
  path: '/editor',
  steps: {
    start: { type: 'trigger', pluginType: 'manual', config: {} },
    one: { type: 'module', pluginType: 'log', config: { message: 'one' }, dependsOn: ['start'] },
    two: { type: 'module', pluginType: 'log', config: { message: 'two' }, dependsOn: ['one'] },
  },
});

/** About 500 lines of YAML: a chain of log steps. */
const large = (key: string) => ({
  name: 'Five hundred lines',
  key,
  path: '/editor',
  steps: Object.fromEntries(
    Array.from({ length: 50 }, (_, i) => [
      `s${i}`,
      i === 0
        ? { type: 'trigger', pluginType: 'manual', config: {} }
        : { type: 'module', pluginType: 'log', config: { message: `step ${i}` }, dependsOn: [`s${i - 1}`] },
    ]),
  ),
});

describe('definition editor in a real browser', function () {
  this.timeout(120_000);
  const ui = useConsole();
  const { env, org } = ui;
  let base: string;
  let page: Page;
  const cspMessages: string[] = [];

  before(async () => {
    ({ base, page } = ui);
    page.on('console', (message) => {
      if (/Content[- ]Security[- ]Policy|Refused to/i.test(message.text())) cspMessages.push(message.text());
    });
    // Every document the page opens records policy violations (the console navigates without reloading, but tests use goto).
    await page.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      (
        window as unknown as {
          addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
        }
      ).addEventListener('securitypolicyviolation', (event) => seen.push(`${event.violatedDirective} ${event.blockedURI}`));
    });
  });

  const violations = async (): Promise<string[]> => [...((await page.evaluate(() => window.cspViolations)) as string[]), ...cspMessages];

  /** Waits until the editor has an answer for the text it shows. */
  const settled = (p: Page) => p.waitForSelector('.editor-status:not([data-lint=pending])', { timeout: 20_000 });

  /** Places the cursor at the end (or the start) of the first rendered editor line that matches `pattern`. */
  const cursorAtLine = async (p: Page, pattern: RegExp, at: 'end' | 'start' = 'end') => {
    const index = await p.$$eval(
      '.cm-line',
      (all: PageElement[], source) => all.findIndex((l) => new RegExp(source).test(l.textContent ?? '')),
      pattern.source,
    );
    assert.ok(index >= 0, `no editor line matches ${pattern}`);
    await p.locator('.cm-line').nth(index).click(); // right of the text: the cursor lands at the end
    await p.keyboard.press('End');
    // Home goes to the end of the indentation first, then to the start of the line.
    if (at === 'start') for (const _ of [1, 2]) await p.keyboard.press('Home');
  };

  it('underlines a problem as you type, clears it when fixed, redraws the graph, publishes with release notes and diffs revisions', async () => {
    await publish(env, org, small('edited'));
    await page.goto(`${base}/console/workflows/edited`);
    await page.click('a:text("Edit definition")');
    await page.waitForURL(/\/console\/workflows\/edited\/edit/);
    await page.waitForSelector('.cm-editor .cm-content');
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    assert.equal(await page.$$eval('.editor-graph .node', (nodes) => nodes.length), 3);

    // A new step that depends on a step nobody wrote.
    await cursorAtLine(page, /^ {2}one:$/, 'start');
    await page.keyboard.insertText(
      '  audit:\n    type: module\n    pluginType: log\n    config:\n      message: audited\n    dependsOn: [nowhere]\n',
    );
    await page.waitForSelector('.cm-lintRange-error', { timeout: 20_000 });
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'problems');
    assert.equal(await page.textContent('.cm-lintRange-error'), 'nowhere');
    const underlinedLine = await page.$eval(
      '.cm-lintRange-error',
      (mark) => (mark as unknown as { closest(s: string): PageElement }).closest('.cm-line').textContent,
    );
    assert.equal(underlinedLine, '    dependsOn: [nowhere]');
    const problem = await page.textContent('.problem-list li.severity-error');
    assert.match(problem ?? '', /must name an existing step \(got "nowhere"\)/);
    const lines = await page.$$eval('.cm-line', (all: PageElement[]) => all.map((line) => line.textContent));
    assert.equal(
      await page.getAttribute('.problem-list li.severity-error', 'data-line'),
      String(lines.indexOf('    dependsOn: [nowhere]') + 1),
    );
    await showcase(page, 'editor');

    // Fixed: the underline goes and the graph shows the new step after `one`.
    await page.dblclick('.cm-lintRange-error');
    await page.keyboard.type('one');
    await page.waitForFunction(() => document.querySelector('.editor-graph .node[data-step="audit"]') !== null, undefined, {
      timeout: 20_000,
    });
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    assert.equal(await page.$('.cm-lintRange-error'), null);
    assert.equal(await page.$$eval('.editor-graph .edge[data-from="one"][data-to="audit"]', (edges) => edges.length), 1);

    // Leaving with unpublished changes asks first; declining stays in the editor with the text as it was.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.click('header a:text("Workflows")');
    assert.match(asked[0] ?? '', /changes are not published/);
    assert.match(page.url(), /\/console\/workflows\/edited\/edit/);
    assert.ok(await page.$('.cm-line:has-text("audited")'));

    // Publish with release notes: the workflow page at revision 2, its graph with the new step.
    await page.fill('#release-notes', 'Audit after one');
    await page.click('[data-action=publish]');
    await page.waitForURL(/\/console\/workflows\/edited\?revision=2$/);
    await page.waitForSelector('.graph .node[data-step="audit"]');
    assert.match((await page.textContent('.revisions li.current')) ?? '', /#2 .*Audit after one/);
    const revision = await org.auth(env.t.request.get('/workflows/definitions/edited/revisions/2'));
    assert.equal(revision.body.releaseNotes, 'Audit after one');

    // The diff of revisions 1 and 2: the new lines in the text, the new step marked in the graph.
    await page.click('a:text("Compare revisions")');
    await page.waitForURL(/\/console\/workflows\/edited\/diff\?from=1&to=2$/);
    await page.waitForSelector('.cm-mergeView');
    const changed = await page.$$eval('.cm-merge-b .cm-changedLine', (all: PageElement[]) => all.map((line) => line.textContent));
    assert.ok(changed.includes('  audit:') && changed.includes('      message: audited'), changed.join('|'));
    assert.equal(await page.$$eval('.cm-merge-a .cm-changedLine', (all) => all.length), 0, 'revision 1 had none of those lines');
    assert.equal(await page.getAttribute('.diff-graph .node[data-step="audit"]', 'data-diff'), 'added');
    assert.equal(await page.getAttribute('.diff-graph .node[data-step="one"]', 'data-diff'), 'same');
    assert.match((await page.textContent('[data-diff-list=added]')) ?? '', /audit/);
    await showcase(page, 'revision-diff');
    assert.deepEqual(await violations(), []);
  });

  it('completes plugin types after `pluginType: `, and publishes a new workflow', async () => {
    await page.goto(`${base}/console/workflows`);
    await page.click('a:text("New workflow")');
    await page.waitForURL(/\/console\/workflows\/new$/);
    await page.waitForSelector('.cm-editor .cm-content');
    await settled(page);

    // The same definition as JSON, and back.
    await page.click('[data-format=json]');
    await page.waitForFunction(() => document.querySelector('.cm-line')?.textContent === '{');
    assert.ok(await page.$('.cm-line:has-text("New workflow")'));
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    await page.click('[data-format=yaml]');
    await page.waitForFunction(() => document.querySelector('.cm-line')?.textContent === 'name: New workflow');

    await cursorAtLine(page, /^ {4}pluginType: log$/);
    for (const _ of 'log') await page.keyboard.press('Backspace');
    await page.keyboard.type('h');
    await page.waitForSelector('.cm-tooltip-autocomplete');
    const offered = await page.$$eval('.cm-tooltip-autocomplete .cm-completionLabel', (all: PageElement[]) =>
      all.map((o) => o.textContent),
    );
    assert.ok(offered.includes('http-request'), offered.join());
    assert.ok(!offered.includes('manual'), 'a trigger plugin is not offered for a module step');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('log');
    await page.keyboard.press('Escape');

    // A config key of the chosen plugin.
    await cursorAtLine(page, /^ {6}message: hello$/);
    await page.keyboard.press('Enter');
    await page.keyboard.type('lev');
    await page.waitForSelector('.cm-tooltip-autocomplete');
    const keys = await page.$$eval('.cm-tooltip-autocomplete .cm-completionLabel', (all: PageElement[]) => all.map((o) => o.textContent));
    assert.ok(keys.includes('level'), keys.join());
    await page.keyboard.press('Escape');
    for (let i = 0; i < 4; i += 1) await page.keyboard.press('Backspace');
    await settled(page);

    // The key the starter proposes, made unique; published by Ctrl-S as revision 1.
    await cursorAtLine(page, /^key: new-workflow$/);
    for (const _ of 'new-workflow') await page.keyboard.press('Backspace');
    await page.keyboard.type('from-the-editor');
    await page.keyboard.press('Escape');
    await settled(page);
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    await page.keyboard.press('Control+s');
    await page.waitForURL(/\/console\/workflows\/from-the-editor\?revision=1$/);
    await page.waitForSelector('.graph .node[data-step="hello"]');
    assert.deepEqual(await violations(), []);
  });

  it('keeps typing responsive in a 500-line definition (times printed)', async () => {
    await publish(env, org, large('five-hundred'));
    await page.goto(`${base}/console/workflows/five-hundred/edit`);
    await page.waitForSelector('.cm-editor .cm-content');
    await settled(page);
    const total = Number(await page.getAttribute('.editor-status', 'data-lines'));
    assert.ok(total >= 480, `the definition has ${total} lines`);

    await cursorAtLine(page, /^ {6}message: step 3$/);
    // Measured in the page: from the key's keydown to the frame after the editor changed its text.
    await page.evaluate(() => {
      const w = window as unknown as {
        keyDownAt: number;
        keyToText: number[];
        addEventListener(t: string, f: () => void, c: boolean): void;
      };
      w.keyToText = [];
      w.addEventListener('keydown', () => (w.keyDownAt = performance.now()), true);
      new (window.MutationObserver as new (f: () => void) => { observe(n: unknown, o: object): void })(() =>
        (window.requestAnimationFrame as (f: () => void) => void)(() => w.keyToText.push(performance.now() - w.keyDownAt)),
      ).observe(document.querySelector('.cm-content'), { childList: true, subtree: true, characterData: true });
    });
    const times: Array<{ text: number; lint: number }> = [];
    for (const key of ['x', 'y', 'z']) {
      await page.evaluate(() => ((window.keyToText as number[]).length = 0));
      await page.keyboard.type(key);
      await page.waitForFunction((k) => document.querySelector('.cm-activeLine')?.textContent?.endsWith(k), key);
      await settled(page);
      const text = await page.evaluate(() => (window.keyToText as number[])[0] ?? -1);
      const lint = Number(await page.getAttribute('.editor-status', 'data-lint-ms'));
      times.push({ text, lint });
    }
    console.log(
      `    500-line definition (${total} lines): keystroke to text ${times.map((t) => t.text.toFixed(0)).join('/')} ms, ` +
        `to validation result ${times.map((t) => t.lint.toFixed(0)).join('/')} ms (300 ms of it the debounce)`,
    );
    assert.equal(await page.getAttribute('.editor-status', 'data-lint'), 'clean');
    assert.deepEqual(await violations(), []);
  });
});
