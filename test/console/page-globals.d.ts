/**
 * The few browser globals the console tests' page callbacks use (`page.evaluate`,
 * `waitForFunction`, `$$eval`): the test program has no DOM library, and these
 * functions run in the browser, never in Node.
 */
interface PageElement {
  getAttribute(name: string): string | null;
  textContent: string | null;
  value?: string;
  className?: string;
}
declare const document: {
  cookie: string;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): { length: number; [index: number]: PageElement };
  activeElement: PageElement | null;
};
declare const window: Record<string, unknown>;
