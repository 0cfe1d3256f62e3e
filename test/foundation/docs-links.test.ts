/**
 * The README and docs/ stay true to themselves: every relative Markdown link names a file
 * that exists and, with a `#fragment`, a heading of that file (GitHub's anchor rule);
 * every npm script is in the README's commands table; and nothing points outside the
 * repository (a clone has only what is in it).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');
const documents = [
  'README.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** The text outside fenced code blocks and inline code spans, where links are links. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of markdown.replace(/^```[\s\S]*?^```/gm, '').split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function links(markdown: string): string[] {
  return [...prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]);
}

describe('documentation', () => {
  it('every relative link names a file that exists and, with a fragment, one of its headings', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const document of documents) {
      for (const target of links(readFileSync(path.join(root, document), 'utf8'))) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
        checked++;
        const [file, fragment] = target.split('#', 2);
        const resolved = file === '' ? path.join(root, document) : path.resolve(path.dirname(path.join(root, document)), file);
        if (!resolved.startsWith(root + path.sep) || !existsSync(resolved)) {
          broken.push(`${document}: ${target} (no such file in the repository)`);
          continue;
        }
        if (fragment !== undefined && !headingAnchors(readFileSync(resolved, 'utf8')).has(fragment))
          broken.push(`${document}: ${target} (no heading with that anchor)`);
      }
    }
    assert.ok(checked > 50, `only ${checked} links found: is the link pattern still right?`);
    assert.deepEqual(broken, []);
  });

  it('the README is a door: short, and every docs/ page is linked from it', () => {
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    assert.ok(readme.split('\n').length <= 250, 'README.md grew past 250 lines: move reference text to docs/');
    const linked = new Set(links(readme).map((target) => target.split('#')[0]));
    for (const document of documents.filter((name) => name !== 'README.md'))
      assert.ok(linked.has(document), `README.md does not link ${document}`);
  });

  it('every npm script is in the README commands table', () => {
    const scripts = Object.keys(
      (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts,
    );
    const table = readFileSync(path.join(root, 'README.md'), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| `'))
      .join('\n');
    const missing = scripts.filter((name) => {
      const spelled = name === 'start' || name === 'test' ? `npm ${name}` : `npm run ${name}`;
      return !new RegExp(`\`${spelled.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[\` ]`).test(table);
    });
    assert.deepEqual(missing, []);
  });

  it('nothing points outside the repository', () => {
    for (const document of documents)
      assert.doesNotMatch(readFileSync(path.join(root, document), 'utf8'), /\.\.\/shared\//, `${document} points at ../shared/`);
  });
});
