/**
 * The web client on the local stack: `npm start` builds `web/` when its `dist/` is missing or
 * older than its sources, then serves it at `/` from the API's own origin — so the page
 * calls the API with no CORS and no configuration, and the sign-in link
 * `http://127.0.0.1:<port>/#token=<jwt>` opens it signed in.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { promisify } from 'node:util';
import { Hono } from 'hono';

const run = promisify(execFile);

/** The web workspace of the repository at `root`, and its build output. */
export function webPaths(root: string): { dir: string; dist: string } {
  const dir = join(root, 'web');
  return { dir, dist: join(dir, 'dist') };
}

/** The newest modification time under `path` (a file, or a folder walked recursively). */
async function newest(path: string): Promise<number> {
  // Missing: it adds nothing to the newest time.
  const info = await stat(path).catch(() => null);
  if (info === null) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const entries = await readdir(path);
  const times = await Promise.all(entries.map((entry) => newest(join(path, entry))));
  return Math.max(info.mtimeMs, ...times);
}

/** Whether `web/dist` is missing or older than what it is built from. */
export async function webBuildStale(root: string): Promise<boolean> {
  const { dir, dist } = webPaths(root);
  // Not built yet.
  const built = await stat(join(dist, 'index.html')).catch(() => null);
  if (built === null) return true;
  const sources = await Promise.all(['src', 'index.html', 'vite.config.ts', 'package.json'].map((name) => newest(join(dir, name))));
  return Math.max(...sources) > built.mtimeMs;
}

/** The Vite command line of the web workspace (the version web/package.json pins). */
export function viteBin(root: string): string {
  const require = createRequire(join(webPaths(root).dir, 'package.json'));
  return join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
}

/**
 * Builds `web/dist` with Vite (`vite build` in `web/`) when it is stale. `env` reaches the
 * build (`VITE_PANTO_*`, see web/src/config.ts); the local stack passes none: same origin.
 */
export async function buildWeb(root: string, options: { force?: boolean; env?: NodeJS.ProcessEnv } = {}): Promise<boolean> {
  if (!options.force && !(await webBuildStale(root))) return false;
  const { dir } = webPaths(root);
  await run(process.execPath, [viteBin(root), 'build', '--logLevel', 'warn'], {
    cwd: dir,
    env: { ...process.env, ...options.env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return true;
}

const TYPES: { [extension: string]: string } = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
};

/** What every page answer carries: no framing by other sites, no inline scripts, and API calls to this origin only. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * `api` with the web client in front: `/` (the page) and `/assets/*` (its hashed files,
 * cached for good) from `dist`; every other request to `api` untouched. Without a built
 * `dist`, `/` says how to build it.
 *
 * @example
 * serve({ fetch: withWeb(app, webPaths(root).dist).fetch, port: 3000 });
 */
export function withWeb(api: { fetch: (request: Request) => Response | Promise<Response> }, dist: string): Hono {
  const page = new Hono();
  page.get('/', async (c) => {
    const index = join(dist, 'index.html');
    if (!existsSync(index)) return c.text('The web client is not built: run `npm run build -w web`.', 503);
    return c.body(await readFile(index, 'utf8'), 200, { ...PAGE_HEADERS, 'content-type': TYPES['.html'] ?? '', 'cache-control': 'no-cache' });
  });
  page.get('/assets/*', async (c) => {
    const assets = join(dist, 'assets');
    let path: string;
    try {
      path = decodeURIComponent(c.req.path);
    } catch {
      return c.notFound(); // a malformed escape (`%E0%A4%A`) names no file
    }
    const file = normalize(join(dist, path));
    const type = TYPES[extname(file)];
    if (!file.startsWith(assets + sep) || type === undefined) return c.notFound();
    // Missing (or a folder): a 404, as for any path the build does not hold.
    const body = await readFile(file).catch(() => null);
    if (body === null) return c.notFound();
    return c.body(new Uint8Array(body), 200, { ...PAGE_HEADERS, 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' });
  });
  page.all('*', (c) => api.fetch(c.req.raw));
  return page;
}
