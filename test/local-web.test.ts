/** How the local stack serves the web client (scripts/local/web.ts): the page, its assets, nothing else, and rebuilding when stale. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webBuildStale, webPaths, withWeb } from '../scripts/local/web.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const api = { fetch: (request: Request) => new Response(`api: ${new URL(request.url).pathname}`, { status: 200 }) };

describe('withWeb', () => {
  // Built by test/setup/web.ts before any test runs.
  const app = withWeb(api, webPaths(root).dist);
  const get = (path: string): Promise<Response> => Promise.resolve(app.fetch(new Request(`http://127.0.0.1${path}`)));

  it('serves the page at / with a policy that allows scripts from its own origin only', async () => {
    const page = await get('/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await page.text();
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets.length).toBeGreaterThanOrEqual(2);
    for (const asset of assets) {
      const response = await get(asset);
      expect(response.status, asset).toBe(200);
      expect(response.headers.get('content-type'), asset).toMatch(/^(text\/javascript|text\/css)/);
      expect(response.headers.get('cache-control'), asset).toContain('immutable');
    }
  });

  it('serves nothing outside dist/assets, and passes every other path to the API', async () => {
    expect((await get('/assets/..%2Findex.html')).status).toBe(404);
    expect((await get('/assets/..%2F..%2Fpackage.json')).status).toBe(404);
    expect((await get('/assets/missing.js')).status).toBe(404);
    // A malformed escape is a path that is not there, not a server error.
    expect((await get('/assets/%E0%A4%A.js')).status).toBe(404);
    expect(await (await get('/sessions')).text()).toBe('api: /sessions');
    expect(await (await get('/index.html')).text()).toBe('api: /index.html');
  });

  it('says how to build the page when dist is missing', async () => {
    const response = await withWeb(api, join(tmpdir(), 'panto-no-such-dist')).fetch(new Request('http://127.0.0.1/'));
    expect(response.status).toBe(503);
    expect(await response.text()).toContain('npm run build -w web');
  });
});

describe('webBuildStale', () => {
  let fakeRoot: string;
  beforeAll(async () => {
    fakeRoot = await mkdtemp(join(tmpdir(), 'panto-web-stale-'));
    await mkdir(join(fakeRoot, 'web', 'src', 'nested'), { recursive: true });
    await writeFile(join(fakeRoot, 'web', 'src', 'nested', 'view.tsx'), 'export {};\n');
    await writeFile(join(fakeRoot, 'web', 'package.json'), '{}\n');
  });
  afterAll(async () => {
    await rm(fakeRoot, { recursive: true, force: true });
  });

  it('is stale without a build, fresh after one, and stale again when any source is newer', async () => {
    expect(await webBuildStale(fakeRoot)).toBe(true);
    const index = join(fakeRoot, 'web', 'dist', 'index.html');
    await mkdir(dirname(index), { recursive: true });
    await writeFile(index, '<!doctype html>\n');
    const old = new Date(Date.now() - 60_000);
    for (const file of ['web/src/nested/view.tsx', 'web/src/nested', 'web/src', 'web/package.json']) await utimes(join(fakeRoot, file), old, old);
    expect(await webBuildStale(fakeRoot)).toBe(false);
    const later = new Date(Date.now() + 60_000);
    await utimes(join(fakeRoot, 'web', 'src', 'nested', 'view.tsx'), later, later);
    expect(await webBuildStale(fakeRoot)).toBe(true);
  });
});
