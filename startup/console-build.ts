/**
 * Builds the web console (console/src) into dist/console with esbuild: one
 * bundled script and one style sheet with content hashes in their names (plus
 * chunks the script imports on demand: the definition editor), and an
 * index.html that loads them (no inline code, so the content security policy
 * can forbid it). `npm start` and the browser tests build when the sources are
 * newer than the last build (a fraction of a second); `npm run build` builds for
 * production, where the sources may be absent and the built files are served.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { FAVICON_FILE } from '../api/console/static-assets';
import { projectRoot } from '../config/project-root';

const root = projectRoot();
export const CONSOLE_SOURCE_DIR = path.join(root, 'console', 'src');
export const CONSOLE_ASSETS_DIR = path.join(root, 'dist', 'console');
/** The console's icon: linked from the page under a hashed name, and kept unhashed for `/favicon.ico`. */
const FAVICON_SOURCE = path.join(root, 'console', 'favicon.svg');

/** Builds when the sources exist and are newer than the build; answers whether it built. */
export async function ensureConsoleBuilt(): Promise<boolean> {
  if (!existsSync(CONSOLE_SOURCE_DIR)) return false;
  const built = path.join(CONSOLE_ASSETS_DIR, 'index.html');
  if (existsSync(built) && (await newestMtime(path.dirname(CONSOLE_SOURCE_DIR))) <= (await stat(built)).mtimeMs) return false;
  await buildConsole();
  return true;
}

/** Bundles, minifies and writes dist/console atomically (a sibling folder renamed into place). */
export async function buildConsole(): Promise<void> {
  const esbuild = await import('esbuild');
  const staging = `${CONSOLE_ASSETS_DIR}.${process.pid}.${Date.now()}`;
  const result = await esbuild.build({
    entryPoints: [path.join(CONSOLE_SOURCE_DIR, 'main.ts'), path.join(CONSOLE_SOURCE_DIR, 'styles.css')],
    bundle: true,
    minify: true,
    sourcemap: true,
    format: 'esm',
    // Dynamic imports (the editor and CodeMirror) become chunks of their own, loaded when first used.
    splitting: true,
    target: ['es2022'],
    outdir: path.join(staging, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    metafile: true,
    logLevel: 'warning',
  });
  const entries = Object.entries(result.metafile.outputs).filter(([, output]) => output.entryPoint !== undefined);
  const script = entries.map(([file]) => path.basename(file)).find((f) => f.endsWith('.js'));
  const style = entries.map(([file]) => path.basename(file)).find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error('the console build produced no script or style sheet');
  const favicon = await readFile(FAVICON_SOURCE);
  const icon = `favicon-${createHash('sha256').update(favicon).digest('hex').slice(0, 8)}.svg`;
  await writeFile(path.join(staging, 'assets', icon), favicon);
  await writeFile(path.join(staging, FAVICON_FILE), favicon);
  await writeFile(path.join(staging, 'index.html'), indexHtml(script, style, icon));
  await mkdir(path.dirname(CONSOLE_ASSETS_DIR), { recursive: true });
  const old = `${CONSOLE_ASSETS_DIR}.old.${process.pid}.${Date.now()}`;
  if (existsSync(CONSOLE_ASSETS_DIR)) await rename(CONSOLE_ASSETS_DIR, old);
  await rename(staging, CONSOLE_ASSETS_DIR);
  await rm(old, { recursive: true, force: true });
}

function indexHtml(script: string, style: string, icon: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Platform console</title>
<link rel="icon" type="image/svg+xml" href="/console/assets/${icon}">
<link rel="stylesheet" href="/console/assets/${style}">
<script type="module" src="/console/assets/${script}"></script>
</head>
<body><div id="app" aria-live="polite"></div></body>
</html>
`;
}

async function newestMtime(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestMtime(full) : (await stat(full)).mtimeMs);
  }
  return newest;
}
