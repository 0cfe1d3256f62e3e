/**
 * A real browser for the console tests: Debian's Chromium (never a downloaded
 * one) driven by playwright-core, headless, with a fresh profile per launch.
 * A failed test keeps a screenshot under test-artifacts/screenshots (git-ignored);
 * pages the README shows are kept under test-artifacts/console (test/console/support.ts).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];
export const SCREENSHOT_DIR = path.resolve('test-artifacts', 'screenshots');

export interface TestBrowser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), 'console-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of `page` named after the failed test. */
export async function keepScreenshot(page: Page, title: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${title.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 120)}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
