/**
 * The pages problem `type` URIs point at (`<PUBLIC_BASE_URL>/errors/<name>`): each is the
 * entry of docs/errors.md for that name, so the one text a reader finds in the repository
 * is also what a self-hosted install without internet access answers. The file is read
 * once, on first use; it holds public documentation only.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../config/project-root';

export const ERROR_DOCS_FILE = path.join(projectRoot(), 'docs', 'errors.md');

/** The heading under which docs/errors.md lists the problem types, one `### <name>` each. */
const SECTION = '## Problem types';

export interface ErrorCatalog {
  /** The section's introduction (Markdown). */
  intro: string;
  /** name → its entry (Markdown). */
  entries: Map<string, string>;
}

export function parseErrorCatalog(markdown: string): ErrorCatalog {
  const start = markdown.indexOf(`\n${SECTION}\n`);
  if (start < 0) throw new Error(`docs/errors.md has no "${SECTION}" section`);
  const section = markdown.slice(start + SECTION.length + 2).split(/\n## /)[0];
  const [intro, ...parts] = section.split(/^### /m);
  const entries = new Map<string, string>();
  for (const part of parts) {
    const newline = part.indexOf('\n');
    entries.set(part.slice(0, newline).trim(), part.slice(newline + 1).trim());
  }
  return { intro: intro.trim(), entries };
}

let catalog: Promise<ErrorCatalog> | undefined;
export function errorCatalog(): Promise<ErrorCatalog> {
  catalog ??= readFile(ERROR_DOCS_FILE, 'utf8').then(parseErrorCatalog, (error: unknown) => {
    catalog = undefined; // a file that appears later (a test's build) is read then
    throw error;
  });
  return catalog;
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The little Markdown the entries use: paragraphs, `code`, **bold**; a link keeps its text (its target is a repository path). */
function renderMarkdown(markdown: string): string {
  return markdown
    .split(/\n\s*\n/)
    .map((paragraph) => {
      const html = escapeHtml(paragraph.replace(/\s*\n\s*/g, ' '))
        .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
        .replace(/`([^`]+)`/g, '<code>$1</code>')
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>');
      return `<p>${html}</p>`;
    })
    .join('\n');
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Platform API</title>
</head>
<body>
${body}
</body>
</html>
`;
}

export function errorPage(name: string, entry: string): string {
  return page(name, `<h1><code>${escapeHtml(name)}</code></h1>\n${renderMarkdown(entry)}\n<p><a href="/errors">Every problem type</a></p>`);
}

export function errorIndexPage({ intro, entries }: ErrorCatalog): string {
  const items = [...entries.keys()].map((name) => `<li><a href="/errors/${escapeHtml(name)}"><code>${escapeHtml(name)}</code></a></li>`);
  return page('Problem types', `<h1>Problem types</h1>\n${renderMarkdown(intro)}\n<ul>\n${items.join('\n')}\n</ul>`);
}

/** Plain pages: no scripts, styles or framing, and public caching (the text changes only with a release). */
export const ERROR_PAGE_HEADERS: Record<string, string> = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'public, max-age=3600',
};
