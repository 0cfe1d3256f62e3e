/** In-page navigation: views call `navigate`; main.ts registers how a path is rendered. */
let renderer: () => Promise<void> = () => Promise.resolve();

export function setRenderer(render: () => Promise<void>): void {
  renderer = render;
}

export function navigate(href: string, replace = false): void {
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  void renderer();
}

export type Cleanup = () => void;
export type View = (main: HTMLElement, params: string[], query: URLSearchParams) => Promise<Cleanup | void>;
