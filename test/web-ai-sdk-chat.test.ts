/**
 * examples/ai-sdk-chat — a React page on `@ai-sdk/react`'s own `useChat` with the stock
 * `DefaultChatTransport` — built here with esbuild, served from its own origin (the API allows
 * it through `PANTO_CORS_ORIGINS`, as a deployment would) and driven in Chromium against the
 * local stack with a real MCP server: send and stream, reload mid-answer and resume,
 * regenerate, approve a tool call, and a spent budget's error.
 */
import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';
import { shots, UI_MS, useWebStack } from './web-harness.js';

const example = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'ai-sdk-chat');
let payments: PaymentsServer;
let site: Server;
let origin = '';

beforeAll(async () => {
  // The example's own bundle, as its `npm run build` makes it (in memory: nothing to clean up).
  const bundle = await build({
    entryPoints: [join(example, 'src', 'main.tsx')],
    bundle: true,
    format: 'esm',
    jsx: 'automatic',
    minify: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    write: false,
    logLevel: 'silent',
  });
  const script = bundle.outputFiles[0]!.contents;
  const html = await readFile(join(example, 'index.html'));
  site = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (path === '/dist/main.js') response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
    else if (path === '/') response.writeHead(200, { 'content-type': 'text/html' }).end(html);
    else response.writeHead(404).end();
  });
  await new Promise<void>((done) => site.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  payments = await startPaymentsServer();
}, 60_000);
afterAll(async () => {
  await payments?.close();
  await new Promise((done) => site?.close(done));
});

const stack = useWebStack('web-ai-sdk-chat', {
  env: () => ({
    PANTO_CORS_ORIGINS: origin,
    PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { payments: { url: payments.url } } }),
    // Spent by the first call of a priced model; the default (fake) model is priced at nothing,
    // so its turns cost nothing (a model without a price is refused under a dollar budget).
    PANTO_BUDGET_DAILY_USD: '0.000001',
    PANTO_MODEL_PRICES: JSON.stringify({ 'anthropic/claude-web': { input: 0, output: 0 } }),
  }),
});

const transcript = (page: Page) => page.getByRole('log', { name: 'Transcript' });
const answers = (page: Page) => transcript(page).locator('article[data-role="assistant"]');

async function openChat(owner?: string, session?: string): Promise<Page> {
  const page = await stack.newPage(900);
  const query = new URLSearchParams({ api: stack.url, ...(session === undefined ? {} : { session }) });
  await page.goto(`${origin}/?${query}#token=${await stack.token(owner)}`);
  await expect.poll(() => new URL(page.url()).searchParams.get('session'), { timeout: UI_MS }).not.toBeNull();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.keyboard.press('Enter');
}

const ready = (page: Page) => expect.poll(() => page.locator('main').getAttribute('data-status'), { timeout: UI_MS }).toBe('ready');

describe("the AI SDK example on panto, in Chromium with @ai-sdk/react's useChat", { timeout: 180_000 }, () => {
  it('sends and streams, resumes after a reload mid-answer, and regenerates as a new branch', async () => {
    const page = await openChat();
    stack.fake.enqueue({ text: 'Hello from panto, streamed word by word.', pauseAfterDeltas: 2, usage: { input: 7, output: 9 } });
    await send(page, 'Say hello');
    await expect.poll(() => answers(page).first().innerText(), { timeout: UI_MS }).toContain('Hello');
    expect(await page.locator('main').getAttribute('data-status')).toBe('streaming');
    stack.fake.resume();
    await expect.poll(() => answers(page).first().innerText(), { timeout: UI_MS }).toContain('streamed word by word.');
    await ready(page);
    expect(await answers(page).first().locator('[data-usage]').innerText()).toContain('7 in, 9 out');
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-streamed.png') });

    // A reload while the model still writes: the page loads the session and resumes the running answer.
    stack.fake.enqueue({ text: 'The first words of a long answer, and then all the rest of it.', pauseAfterDeltas: 4 });
    await send(page, 'Take your time');
    await expect.poll(() => answers(page).nth(1).innerText(), { timeout: UI_MS }).toContain('The first');
    // The answer so far is stored about once a second: let it be, then reload.
    await page.waitForTimeout(1_500);
    await page.reload();
    await expect.poll(() => answers(page).nth(1).innerText(), { timeout: UI_MS }).toContain('The first words');
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-resumed-mid-answer.png') });
    stack.fake.resume();
    await expect.poll(() => answers(page).nth(1).innerText(), { timeout: UI_MS }).toContain('all the rest of it.');
    await ready(page);
    expect(await answers(page).count()).toBe(2);

    stack.fake.enqueue({ text: 'Another take, on a branch of its own.' });
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await expect.poll(() => answers(page).nth(1).innerText(), { timeout: UI_MS }).toContain('Another take');
    await ready(page);
    expect(await answers(page).count()).toBe(2);
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-regenerated.png') });
    // The session keeps both answers; a reload shows the new branch.
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Another take');
    expect(await transcript(page).innerText()).not.toContain('all the rest of it.');
  });

  it('shows a call that asks with Approve, and Approve runs it and the answer goes on', async () => {
    const page = await openChat();
    stack.fake.enqueue({ text: 'I will pay Bob.', toolCalls: [{ id: 'toolu_chat_web_pay', name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } }] });
    await send(page, 'Pay Bob 5');
    const approve = page.getByRole('button', { name: 'Approve' });
    await approve.waitFor();
    expect(payments.payCalls()).toBe(0);
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-approval-requested.png') });
    stack.fake.enqueue({ text: 'Paid Bob 5.' });
    await approve.click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Paid Bob 5.');
    expect(await transcript(page).innerText()).toContain('Paid 5 to bob');
    expect(payments.payments).toEqual([{ tool: 'pay', to: 'bob', amount: 5 }]);
    await ready(page);
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-approved.png') });
  });

  it("shows a spent budget's refusal with panto's code, and stores nothing", async () => {
    const token = await stack.token('spender');
    const created = await fetch(`${stack.url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ provider: 'anthropic', model: 'claude-sonnet-5-5' }),
    });
    const { id } = (await created.json()) as { id: string };
    const page = await openChat('spender', id);
    stack.fake.enqueue({ text: 'That cost something.', usage: { input: 1_000, output: 1_000 } });
    await send(page, 'Spend it');
    await expect.poll(() => answers(page).first().innerText(), { timeout: UI_MS }).toContain('That cost something.');
    await ready(page);
    // The day's budget is spent now: the next prompt is refused before its stream, with nothing stored.
    await send(page, 'And more');
    await expect.poll(() => page.getByRole('alert').innerText(), { timeout: UI_MS }).toContain('budget_exceeded');
    await page.screenshot({ path: join(shots, 'ai-sdk-chat-over-budget.png') });
    const chat = (await (await fetch(`${stack.url}/chat/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as unknown[];
    expect(chat).toHaveLength(2);
  });
});
