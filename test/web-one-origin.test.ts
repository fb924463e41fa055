/**
 * The web client as the stage serves it behind its Router: built with `VITE_PANTO_API_URL=/api`
 * and `VITE_PANTO_STREAM_URL=/stream` (what infra/web.ts gives it), served from one origin that
 * does what the Router's CloudFront functions do — the page at `/`, `/api/*` and `/stream/*`
 * rewritten to the functions' own paths (`^/api/(.*)$` → `/$1`, asserted in sst-config.test.ts)
 * and sent on to the service (the local stack). In Debian's Chromium: the page signs in, creates
 * a session and streams a turn through those paths, with no request leaving its origin.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve, type ServerType } from '@hono/node-server';
import { FakeLLMServer } from '@panto/core/testing';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viteBin, webPaths, withWeb } from '../scripts/local/web.js';
import { localAws, type LocalAws } from './setup/aws-fixtures.js';
import { CHROMIUM } from './setup/web.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);
const UI_MS = 15_000;
/** The Router's routes (infra/web.ts): a prefix, and the rewrite its CloudFront function applies. */
const ROUTES = [
  { prefix: '/api', regex: /^\/api\/(.*)$/ },
  { prefix: '/stream', regex: /^\/stream\/(.*)$/ },
];

let aws: LocalAws;
let fake: FakeLLMServer;
let dataDir: string;
let dist: string;
let service: LocalStack;
let origin: ServerType;
let url: string;
let browser: Browser;
/** Every path the one origin was asked for, and what it sent on to the service. */
const forwarded: { path: string; to: string }[] = [];

beforeAll(async () => {
  [aws, fake] = await Promise.all([localAws('web-one-origin'), FakeLLMServer.start()]);
  dataDir = await mkdtemp(join(tmpdir(), 'panto-one-origin-'));
  dist = join(dataDir, 'dist');
  await run(process.execPath, [viteBin(root), 'build', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: webPaths(root).dir,
    env: { ...process.env, VITE_PANTO_API_URL: '/api', VITE_PANTO_STREAM_URL: '/stream' },
  });
  service = await startLocalStack({ aws, dataDir: join(dataDir, 'stack'), fake, model: 'claude-one-origin' });
  // The Router: the page's files, and the two prefixes rewritten and sent on; nothing else reaches the service.
  const routed = {
    fetch: async (request: Request): Promise<Response> => {
      const { pathname, search } = new URL(request.url);
      const route = ROUTES.find(({ prefix }) => pathname.startsWith(`${prefix}/`));
      if (route === undefined) return new Response('no such route', { status: 404 });
      const to = pathname.replace(route.regex, '/$1');
      forwarded.push({ path: pathname, to });
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
      return fetch(`${service.url}${to}${search}`, { method: request.method, headers: request.headers, ...(body === undefined ? {} : { body }) });
    },
  };
  const page = withWeb(routed, dist);
  await new Promise<void>((resolveListening) => {
    origin = serve({ fetch: page.fetch, port: 0, hostname: '127.0.0.1' }, () => resolveListening());
  });
  url = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolveClosed) => (origin ? origin.close(() => resolveClosed()) : resolveClosed()));
  await service?.stop();
  await fake?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('the web client behind one origin', { timeout: 90_000 }, () => {
  it('signs in, creates a session and streams a turn through /api and /stream, calling nothing but its own origin', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_MS);
    const requested: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    const token = service.signInLink.split('#token=')[1] ?? '';
    await page.goto(`${url}/#token=${token}`);
    await page.getByRole('navigation', { name: 'Sessions' }).waitFor();

    await page.getByRole('button', { name: 'New session', exact: true }).click();
    await expect.poll(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), { timeout: UI_MS }).not.toBe('');
    fake.enqueue({ text: 'Answered through the Router.', usage: { input: 4, output: 5 } });
    await page.getByRole('textbox', { name: 'Message' }).fill('Are you behind one origin?');
    await page.keyboard.press('Enter');
    const transcript = page.getByRole('log', { name: 'Transcript' });
    await expect.poll(() => transcript.innerText(), { timeout: UI_MS }).toContain('Answered through the Router.');
    await page.reload();
    await expect.poll(() => transcript.innerText(), { timeout: UI_MS }).toContain('Are you behind one origin?');
    await context.close();

    // Every request the page made stayed on its origin: no CORS needed.
    expect(requested.filter((each) => !each.startsWith(`${url}/`))).toEqual([]);
    // The API and the stream were reached through their prefixes, rewritten to the service's routes.
    expect(forwarded.map(({ path, to }) => [path.split('/')[1], to.split('/')[1]])).toEqual(
      expect.arrayContaining([
        ['api', 'sessions'],
        ['stream', 'sessions'],
      ]),
    );
    expect(forwarded.find(({ to }) => to.endsWith('/messages/stream'))?.path).toMatch(/^\/stream\/sessions\/[\w-]+\/messages\/stream$/);
    expect(forwarded.every(({ path, to }) => path === `/${path.split('/')[1]}${to}`)).toBe(true);
  });
});
