/**
 * What the browser tests share: `scripts/start.ts` — the local stack as `npm start` runs it,
 * serving web/dist at `/` — with a FakeLLMServer as the Anthropic API, and Debian's headless
 * Chromium (installed by test/setup/web.ts) driven by playwright-core. `useWebStack()` starts
 * both for a test file and stops them after it; screenshots go to test-results/web/.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FakeLLMServer } from '@panto/core/testing';
import { localSecretFile, readLocalSecret, signLocalToken } from '@panto/functions/local';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { localAws } from './setup/aws-fixtures.js';
import { startLocalStack, type LocalStack } from './local-stack-harness.js';
import { CHROMIUM } from './setup/web.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const shots = join(root, 'test-results', 'web');
/** How long the page may take to show what a step expects (the machine is shared and slow). */
export const UI_MS = 15_000;

/** The running stack and browser of one test file; its fields are set once `beforeAll` has run. */
export interface WebStack {
  fake: FakeLLMServer;
  server: LocalStack;
  url: string;
  signInLink: string;
  browser: Browser;
  /** A token of `owner` (the default owner's when absent: the one of the printed link). */
  token(owner?: string): Promise<string>;
  /** The server's data folder (its `stack.json` names its table: `npm run user` finds it there). */
  dataDir: string;
  /** A fresh browser profile (its own storage) at `width` × 800. */
  newPage(width?: number, options?: BrowserContextOptions): Promise<Page>;
}

/**
 * Starts the stack and the browser for the test file that calls it (before its tests), and
 * stops them after. `env`: more settings of the stack (`PANTO_MCP_SERVERS`, a second provider,
 * …), read when it starts — after the hooks the file registered before calling this; `fake` is
 * in reach of them as `FAKE_URL` in their values (`OPENAI_BASE_URL: 'FAKE_URL/v1'`).
 */
export function useWebStack(name: string, options: { env?: () => NodeJS.ProcessEnv } = {}): WebStack {
  const contexts: BrowserContext[] = [];
  let dataDir = '';
  let secret: Uint8Array;
  const stack = {} as WebStack;
  beforeAll(async () => {
    const aws = await localAws(name);
    stack.fake = await FakeLLMServer.start();
    dataDir = await mkdtemp(join(tmpdir(), `panto-${name}-`));
    await mkdir(shots, { recursive: true });
    const env = options.env?.() ?? {};
    const settings = Object.fromEntries(Object.entries(env).map(([key, value]) => [key, value?.replace('FAKE_URL', stack.fake.url)]));
    stack.server = await startLocalStack({ aws, dataDir, fake: stack.fake, model: 'claude-web', env: settings });
    stack.dataDir = dataDir;
    stack.url = stack.server.url;
    stack.signInLink = stack.server.signInLink;
    secret = await readLocalSecret(localSecretFile(dataDir));
    stack.token = async (owner) => (owner === undefined ? (stack.signInLink.split('#token=')[1] ?? '') : signLocalToken(secret, owner));
    stack.browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    stack.newPage = async (width = 1280, options = {}) => {
      const context = await stack.browser.newContext({ viewport: { width, height: 800 }, ...options });
      contexts.push(context);
      const page = await context.newPage();
      page.setDefaultTimeout(UI_MS);
      return page;
    };
  }, 120_000);
  afterEach(async () => {
    stack.fake.resume();
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    await stack.browser?.close();
    await stack.server?.stop();
    await stack.fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });
  return stack;
}

export async function signIn(page: Page, link: string): Promise<void> {
  await page.goto(link);
  await page.getByRole('navigation', { name: 'Sessions' }).waitFor();
}

/**
 * Opens a new session with New session: the message box ready, the model chosen (the server's
 * default) and, when given, the system prompt filled in. Nothing is created until the first
 * message is sent (see {@link startSession}).
 */
export async function createSession(page: Page, system?: string): Promise<void> {
  await page.getByRole('button', { name: 'New session', exact: true }).click();
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  await expect.poll(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), { timeout: UI_MS }).not.toBe('');
  if (system !== undefined) {
    await page.locator('details.system-prompt > summary').click();
    await page.getByRole('textbox', { name: 'System prompt (optional)' }).fill(system);
  }
}

/** The id of the session the page shows (its address: `#session=<id>`), once it shows one. */
export async function openSessionId(page: Page): Promise<string> {
  await expect.poll(() => new URL(page.url()).hash, { timeout: UI_MS }).toMatch(/^#session=/);
  return decodeURIComponent(new URL(page.url()).hash.replace('#session=', ''));
}

/**
 * A new session started with its first message: `prompt`, answered by `answer` (enqueued on
 * `fake`). Waits for the answer, and for the chat to have read the session, so that a turn
 * another tab starts from here on is one it does not know of. The session's id.
 */
export async function startSession(
  page: Page,
  fake: FakeLLMServer,
  { prompt = 'Hello', answer = 'Hello.', system }: { prompt?: string; answer?: string; system?: string } = {},
): Promise<string> {
  await createSession(page, system);
  fake.enqueue({ text: answer });
  await sendAndWait(page, prompt);
  await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain(answer);
  return openSessionId(page);
}

export const transcript = (page: Page) => page.getByRole('log', { name: 'Transcript' });

/** Types a prompt with the keyboard alone and sends it with Enter. */
export async function sendWithKeyboard(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).focus();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

/** Sends `text` and waits for its turn to end: the prompt in the transcript, Send back, no Stop (a new session's first message included). */
export async function sendAndWait(page: Page, text: string): Promise<void> {
  await sendWithKeyboard(page, text);
  const ended = async (): Promise<boolean> =>
    (await transcript(page).count()) === 1 &&
    (await transcript(page).innerText()).includes(text) &&
    (await page.getByRole('button', { name: 'Stop' }).count()) === 0 &&
    (await page.getByRole('button', { name: 'Send', exact: true }).isVisible());
  await expect.poll(ended, { timeout: UI_MS }).toBe(true);
}

/** The lowest contrast ratio (WCAG) of the text the page shows, and where it is: every visible text node against the background it is drawn on. */
export function lowestTextContrast(page: Page): Promise<{ ratio: number; where: string }> {
  return page.evaluate<{ ratio: number; where: string }>(`(() => {
    const parse = (color) => { const v = color.match(/[\\d.]+/g).map(Number); return { rgb: v.slice(0, 3), alpha: v.length > 3 ? v[3] : 1 }; };
    const lum = (rgb) => rgb.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
    const over = (top, bottom) => top.rgb.map((v, i) => v * top.alpha + bottom[i] * (1 - top.alpha));
    // The colour behind an element: its ancestors' backgrounds composed from the page's down.
    const background = (element) => {
      const layers = [];
      for (let at = element; at; at = at.parentElement) layers.push(parse(getComputedStyle(at).backgroundColor));
      let rgb = parse(getComputedStyle(document.documentElement).backgroundColor).rgb;
      if (parse(getComputedStyle(document.documentElement).backgroundColor).alpha === 0) rgb = [255, 255, 255];
      for (const layer of layers.reverse()) rgb = over(layer, rgb);
      return rgb;
    };
    let lowest = { ratio: Infinity, where: '' };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const element = node.parentElement;
      if (!element || node.textContent.trim() === '' || element.closest('[disabled], option, select, .visually-hidden')) continue;
      const rect = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (rect.width === 0 || rect.height === 0 || style.visibility === 'hidden' || element.closest('[hidden]')) continue;
      const text = lum(over(parse(style.color), background(element)));
      const back = lum(background(element));
      const ratio = (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05);
      if (ratio < lowest.ratio) lowest = { ratio, where: element.tagName + '.' + element.className + ': ' + node.textContent.trim().slice(0, 40) };
    }
    // Fields draw their value themselves (no text node): their own colour on their own background.
    for (const field of document.querySelectorAll('select, textarea, input')) {
      const rect = field.getBoundingClientRect();
      if (field.disabled || rect.width === 0 || rect.height === 0) continue;
      const text = lum(over(parse(getComputedStyle(field).color), background(field)));
      const back = lum(background(field));
      const ratio = (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05);
      if (ratio < lowest.ratio) lowest = { ratio, where: field.tagName + '#' + field.id };
    }
    return lowest;
  })()`);
}
