/**
 * Serves the built console under /console: hashed assets from /console/assets/
 * with a year-long immutable cache, and the page itself (index.html) for every
 * other console path, revalidated on each load, so a deep link such as
 * /console/executions/exec_… opens the right view. Every answer carries a strict
 * content security policy: scripts and styles from this origin only, no inline
 * code, no framing. The console's icon is also served at /favicon.ico, where
 * browsers look for one on pages that link none.
 *
 * Files are read once from the build directory and kept in memory (the build is
 * a few hundred kilobytes); names are matched against a strict pattern, so no
 * request can reach outside that directory.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';
import type { AppState } from '../http/route';

export const CONSOLE_PREFIX = '/console';
/** The icon's unhashed copy in the build, served at `/favicon.ico` for pages that link none (the console's page links its hashed copy). */
export const FAVICON_FILE = 'favicon.svg';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};
const ASSET_NAME = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*\.(js|css|svg|map)$/;

interface LoadedFile {
  body: Buffer;
  type: string;
}

/** Console paths that are API routes (the session, sign-in through the OpenID Connect issuer), not pages. */
const API_PATHS = /^\/console\/(session|oidc)(\/|$)/;

/** Serves the console from `assetsDir` (see startup/console-build.ts); the session routes are ordinary API routes. */
export function consoleAssets(assetsDir: string): Middleware<AppState> {
  const cache = new Map<string, Promise<LoadedFile | undefined>>();
  const load = (name: string, type: string): Promise<LoadedFile | undefined> => {
    let file = cache.get(name);
    if (!file) {
      file = readFile(path.join(assetsDir, name)).then(
        (body) => ({ body, type }),
        () => {
          cache.delete(name); // not built yet: look again next time
          return undefined;
        },
      );
      cache.set(name, file);
    }
    return file;
  };

  return async (ctx, next) => {
    if (ctx.path === '/favicon.ico' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      const icon = await load(FAVICON_FILE, 'image/svg+xml');
      if (!icon) {
        await next();
        return;
      }
      // Browsers take an SVG icon by its content type whatever the name; a day's cache, since the name is not hashed.
      ctx.set({ 'Cache-Control': 'public, max-age=86400', 'X-Content-Type-Options': 'nosniff' });
      ctx.type = icon.type;
      ctx.body = icon.body;
      return;
    }
    const inConsole = ctx.path === CONSOLE_PREFIX || ctx.path.startsWith(`${CONSOLE_PREFIX}/`);
    if (!inConsole || API_PATHS.test(ctx.path) || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) {
      await next();
      return;
    }
    ctx.set({
      'Content-Security-Policy': CONSOLE_CSP,
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'X-Frame-Options': 'DENY',
      'Cross-Origin-Opener-Policy': 'same-origin',
    });
    const assetPrefix = `${CONSOLE_PREFIX}/assets/`;
    if (ctx.path.startsWith(assetPrefix)) {
      const name = ctx.path.slice(assetPrefix.length);
      const file = ASSET_NAME.test(name) ? await load(`assets/${name}`, CONTENT_TYPES[path.extname(name)]) : undefined;
      if (!file) {
        ctx.status = 404;
        ctx.type = 'text/plain';
        ctx.body = 'Not found';
        return;
      }
      ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      ctx.type = file.type;
      ctx.body = file.body;
      return;
    }
    const page = await load('index.html', 'text/html; charset=utf-8');
    ctx.set('Cache-Control', 'no-cache');
    if (!page) {
      ctx.status = 503;
      ctx.type = 'text/plain';
      ctx.body = 'The console is not built: run npm run build (npm start builds it when its sources are present).';
      return;
    }
    ctx.type = page.type;
    ctx.body = page.body;
  };
}
