/**
 * The web client as a new user first meets it, in Chromium against the local stack
 * (test/web-harness.ts): the sign-in kept for the browser (a new tab signed in, a sign-out in
 * every tab, the page's script policy), a new session that is the message box and is created
 * by its first message, a message after a failed turn that simply follows it, a fork that
 * says it is one, and a budget notice that says when to try again. Screenshots in
 * test-results/web/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runUserCommand } from '../scripts/deployed/commands.js';
import {
  createSession,
  lowestTextContrast,
  openSessionId,
  sendAndWait,
  sendWithKeyboard,
  shots,
  signIn,
  startSession,
  transcript,
  UI_MS,
  useWebStack,
} from './web-harness.js';

// The fake model has a price (nothing), so that a dollar budget refuses its turns as spent, not as unpriced.
const stack = useWebStack('web-first-use', { env: () => ({ PANTO_MODEL_PRICES: JSON.stringify({ 'anthropic/claude-web': { input: 0, output: 0 } }) }) });

/** The sessions `owner` has, as the API lists them. */
async function listed(owner?: string): Promise<{ id: string; title: string | null }[]> {
  const response = await fetch(`${stack.url}/sessions?limit=100`, { headers: { authorization: `Bearer ${await stack.token(owner)}` } });
  return ((await response.json()) as { sessions: { id: string; title: string | null }[] }).sessions;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 });

/** Screenshots of what the page shows now in the dark scheme and on a 390 × 844 phone (every text at AA in the dark), then back. */
async function darkAndPhone(page: Page, name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'dark' });
  const contrast = await lowestTextContrast(page);
  expect(contrast.ratio, contrast.where).toBeGreaterThanOrEqual(4.5);
  await page.screenshot({ path: join(shots, `${name}-dark-1280.png`) });
  await page.setViewportSize({ width: 390, height: 844 });
  expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
  await page.screenshot({ path: join(shots, `${name}-dark-390.png`) });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.screenshot({ path: join(shots, `${name}-390.png`) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('the web client, first use', { timeout: 90_000 }, () => {
  it('keeps the sign-in for the browser: a session link opened in a new tab is signed in, and signing out signs every tab out', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    const id = await startSession(page, stack.fake, { prompt: 'Remember me', answer: 'I will.' });
    // A new tab of the same browser, opened on the session's link (or a bookmark): no Token form.
    const tab = await page.context().newPage();
    tab.setDefaultTimeout(UI_MS);
    await tab.goto(`${stack.url}/#session=${id}`);
    await expect.poll(() => transcript(tab).innerText(), { timeout: UI_MS }).toContain('I will.');
    expect(await tab.getByRole('textbox', { name: 'Token' }).count()).toBe(0);
    await tab.screenshot({ path: join(shots, 'new-tab-signed-in-1280.png') });

    // Signing out in the first tab ends the sign-in in the other one too, and forgets the token.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await tab.getByRole('textbox', { name: 'Token' }).waitFor();
    expect(await tab.locator('body').innerText()).not.toContain('Remember me');
    expect(await tab.evaluate<string | null>("localStorage.getItem('panto.token')")).toBeNull();
    await tab.reload();
    await tab.getByRole('textbox', { name: 'Token' }).waitFor();
  });

  it('serves the page with a script policy of its own: an inline script does not run where the token is kept', async () => {
    const html = await (await fetch(`${stack.url}/`)).text();
    expect(html).toMatch(/<meta http-equiv="Content-Security-Policy" content="[^"]*script-src 'self';/);
    const page = await stack.newPage();
    const blocked: string[] = [];
    page.on('console', (message) => message.text().includes('Content Security Policy') && blocked.push(message.text()));
    await signIn(page, stack.signInLink);
    const ran = await page.evaluate<unknown>(`(() => {
      const script = document.createElement('script');
      script.textContent = 'window.stolen = localStorage.getItem("panto.token")';
      document.body.append(script);
      return window.stolen;
    })()`);
    expect(ran).toBeUndefined();
    await expect.poll(() => blocked.length).toBeGreaterThan(0);
  });

  it('starts a new session as a message box, and creates it with the first message — none before', async () => {
    const owner = 'newcomer';
    const page = await stack.newPage();
    await signIn(page, `${stack.url}/#token=${await stack.token(owner)}`);
    await page.getByRole('button', { name: 'New session', exact: true }).click();
    // The cursor is in the message box at once; the model and the system prompt are there to change first.
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'), { timeout: UI_MS }).toBe('composer');
    await expect.poll(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), { timeout: UI_MS }).toBe('anthropic/claude-web');
    await page.screenshot({ path: join(shots, 'new-session-1280.png') });
    expect(await listed(owner)).toEqual([]);
    // Leaving it leaves nothing behind.
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'New session', exact: true }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    expect(await listed(owner)).toEqual([]);

    stack.fake.enqueue({ text: 'A first answer, in a session made for it.', pauseAfterDeltas: 2 });
    await sendWithKeyboard(page, 'My very first message');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('A first');
    // The session exists now, named by its first message, and the chat is its own.
    expect((await listed(owner)).map((session) => session.title)).toEqual(['My very first message']);
    expect(await heading(page).innerText()).toBe('My very first message');
    await page.screenshot({ path: join(shots, 'first-message-1280.png') });
    stack.fake.resume();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    const id = await openSessionId(page);
    expect((await listed(owner)).map((session) => session.id)).toEqual([id]);
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('in a session made for it.');
    expect(await transcript(page).innerText()).toContain('My very first message');
  });

  it('offers no Compact or Fork on a session with nothing in it', async () => {
    const token = await stack.token();
    const created = (await (await fetch(`${stack.url}/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' })).json()) as {
      id: string;
    };
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await page.goto(`${stack.url}/#session=${created.id}`);
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Send a message to start.');
    await page.getByRole('button', { name: 'Rename' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Compact|Fork)$/ }).count()).toBe(0);
  });

  it('lets a message after a failed turn simply follow it: no branch, the failed prompt where it was sent, the title from the answered one', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ status: 400 });
    await sendWithKeyboard(page, 'Are you there?');
    await page.getByRole('button', { name: 'Resend' }).waitFor();
    // Not Resend: a new message, typed.
    stack.fake.enqueue({ text: 'Yes — here now.', pauseAfterDeltas: 1 });
    await sendWithKeyboard(page, 'Hello?');
    // While it is answered, the failed prompt stays where it was.
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Yes');
    expect(await transcript(page).innerText()).toContain('Are you there?');
    stack.fake.resume();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('here now.');
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();

    const check = async (): Promise<void> => {
      const text = await transcript(page).innerText();
      expect(text.indexOf('Are you there?')).toBeLessThan(text.indexOf('No answer'));
      expect(text.indexOf('No answer')).toBeLessThan(text.indexOf('Hello?'));
      expect(text.indexOf('Hello?')).toBeLessThan(text.indexOf('here now.'));
      expect(await page.getByRole('button', { name: /^Branches/ }).count()).toBe(0);
      expect(
        await transcript(page)
          .getByRole('button', { name: /^(Previous|Next) branch$/ })
          .count(),
      ).toBe(0);
      expect(await page.getByRole('button', { name: 'Resend' }).count()).toBe(0);
      expect(await heading(page).innerText()).toBe('Hello?');
    };
    await expect.poll(() => transcript(page).locator('.failed-prompt').count(), { timeout: UI_MS }).toBe(1);
    await check();
    await expect
      .poll(() => page.getByRole('navigation', { name: 'Sessions' }).locator('button.session[aria-current="page"] .session-title').innerText(), {
        timeout: UI_MS,
      })
      .toBe('Hello?');
    await page.screenshot({ path: join(shots, 'failed-then-followed-1280.png') });
    await darkAndPhone(page, 'failed-then-followed');
    await page.reload();
    await expect.poll(() => transcript(page).locator('.failed-prompt').count(), { timeout: UI_MS }).toBe(1);
    await check();
    // The model never saw the failed prompt.
    const last = stack.fake.requests.at(-1)!.body as { messages: { role: string }[] };
    const prompts = last.messages.filter((message) => message.role === 'user');
    expect(prompts).toHaveLength(1);
  });

  it('says you are in the fork, titles it apart from the original, and opens the original on request', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    const original = await startSession(page, stack.fake, { prompt: 'Plan a trip to Lyon', answer: 'Day one: the old town.' });
    await page.getByRole('button', { name: 'Fork', exact: true }).click();
    const notice = page.getByRole('status').filter({ hasText: 'fork' });
    await expect.poll(() => notice.innerText(), { timeout: UI_MS }).toContain('You are in a fork of “Plan a trip to Lyon”');
    const fork = await openSessionId(page);
    expect(fork).not.toBe(original);
    await expect.poll(() => heading(page).innerText(), { timeout: UI_MS }).toBe('Plan a trip to Lyon (fork)');
    const titles = page.getByRole('navigation', { name: 'Sessions' }).locator('.session-title');
    await expect.poll(() => titles.allInnerTexts(), { timeout: UI_MS }).toEqual(expect.arrayContaining(['Plan a trip to Lyon (fork)', 'Plan a trip to Lyon']));
    await page.screenshot({ path: join(shots, 'fork-notice-1280.png') });
    await darkAndPhone(page, 'fork-notice');
    await notice.getByRole('button', { name: 'Open the original' }).click();
    await expect.poll(() => openSessionId(page), { timeout: UI_MS }).toBe(original);
    await expect.poll(() => heading(page).innerText(), { timeout: UI_MS }).toBe('Plan a trip to Lyon');
    expect(await page.getByRole('status').filter({ hasText: 'fork' }).count()).toBe(0);
  });

  it('tells a turn refused by the spend budget when to try again, and keeps the message', async () => {
    const owner = 'spent';
    let out = '';
    const code = await runUserCommand(['limits', owner, '--daily-usd', '0'], {
      root: process.cwd(),
      env: { PANTO_DATA_DIR: stack.dataDir },
      stdout: (text) => (out += text),
      stderr: (text) => (out += text),
      readPassword: async () => '',
    });
    expect(code, out).toBe(0);
    const page = await stack.newPage();
    await signIn(page, `${stack.url}/#token=${await stack.token(owner)}`);
    await createSession(page);
    await sendWithKeyboard(page, 'Worth a try');
    const notice = page.getByRole('alert');
    await expect.poll(() => notice.innerText(), { timeout: UI_MS }).toContain('You have used up your spend budget');
    // The budget is a UTC day's: the page says when it resets, in hours and the reader's time.
    const midnight = await page.evaluate<string>(`(() => {
      const next = new Date(); next.setUTCHours(24, 0, 0, 0);
      return next.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
    })()`);
    expect(await notice.innerText()).toMatch(new RegExp(`Try again in \\d+ (h, at ${midnight}|min|s)\\.`));
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Worth a try');
    await page.screenshot({ path: join(shots, 'budget-notice-1280.png') });
  });

  it('sends a second message into the session its first message created', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'One.' }, { text: 'Two.' });
    await sendAndWait(page, 'First');
    await sendAndWait(page, 'Second');
    const text = await transcript(page).innerText();
    expect(text.indexOf('One.')).toBeLessThan(text.indexOf('Second'));
    expect(text).toContain('Two.');
  });
});
