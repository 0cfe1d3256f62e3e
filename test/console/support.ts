/**
 * What every console browser test needs: the real app (PostgreSQL, Temporal, a
 * worker) listening on a port, Debian's Chromium with a fresh profile, a signed-in
 * page, and two kinds of screenshot: `showcase` keeps a page's picture under
 * test-artifacts/console/ (committed: the README's console section shows them),
 * and a failed test keeps one under test-artifacts/screenshots/ (git-ignored).
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { SignInCodes } from '../../api/console/sign-in-codes';
import { useExecEnv, type ExecEnv, type ExecEnvOptions, type OrgContext } from '../executions-api/support';
import { keepScreenshot, launchBrowser, type TestBrowser } from '../support/browser';

export const SHOWCASE_DIR = path.resolve('test-artifacts', 'console');

export interface ConsoleEnv {
  env: ExecEnv;
  org: OrgContext;
  codes: SignInCodes;
  /** `http://127.0.0.1:PORT` of the app. */
  readonly base: string;
  readonly browser: TestBrowser;
  /** The shared page, signed in as the organization's admin (`org`) before the first test. */
  readonly page: Page;
  /** Signs `page` in with a one-time link for `userId` (default: the organization's admin) and waits for the console. */
  signIn(page: Page, userId?: string): Promise<void>;
}

export function useConsole(options: ExecEnvOptions = {}): ConsoleEnv {
  const codes = new SignInCodes();
  const { env, org } = useExecEnv({ ...options, console: { ...options.console, signInCodes: codes } });
  let server: Server | undefined;
  let base = '';
  let browser: TestBrowser | undefined;

  const signIn = async (page: Page, userId = org.userId) => {
    const code = codes.issue({ userId, organizationId: org.id });
    await page.goto(`${base}/console/#code=${code}`);
    await page.waitForSelector('header .who');
  };

  before(async () => {
    server = createServer(env.t.app.koa.callback());
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchBrowser();
    await signIn(browser.page);
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && browser)
      console.log(`    screenshot kept: ${await keepScreenshot(browser.page, this.currentTest.fullTitle())}`);
  });

  return {
    env,
    org,
    codes,
    get base() {
      return base;
    },
    get browser() {
      if (!browser) throw new Error('the browser is started in before()');
      return browser;
    },
    get page() {
      return this.browser.page;
    },
    signIn,
  };
}

/** Keeps a picture of `page` as test-artifacts/console/NAME.png (the README's console section shows these). */
export async function showcase(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  await mkdir(SHOWCASE_DIR, { recursive: true });
  const file = path.join(SHOWCASE_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: options.fullPage ?? false });
  return file;
}
