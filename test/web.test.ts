/**
 * The web client in a real browser: Debian's headless Chromium (installed by
 * test/setup/web.ts) driven by playwright-core, against `scripts/start.ts` — the local stack
 * as `npm start` runs it, serving web/dist at `/` — with a FakeLLMServer as the Anthropic API
 * (test/web-harness.ts). Screenshots go to test-results/web/. Branches, the model and
 * compaction: web-branches.test.ts; themes, code blocks and the first screen: web-polish.test.ts.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  createSession,
  openSessionId,
  sendAndWait,
  sendWithKeyboard,
  shots,
  signIn as signInWith,
  startSession,
  transcript,
  UI_MS,
  useWebStack,
} from './web-harness.js';

const stack = useWebStack('web');

const signIn = (page: Page, link = stack.signInLink): Promise<void> => signInWith(page, link);
const newPage = (width?: number): Promise<Page> => stack.newPage(width);

/**
 * A streamed turn sent to `id` as another tab would, held by the fake model after the first
 * words of `answer` until `stack.fake.resume()`; its response is read to the end by the caller.
 */
async function otherTabTurn(id: string, prompt: string, answer: string): Promise<Response> {
  stack.fake.enqueue({ text: answer, pauseAfterDeltas: 1 });
  const other = await fetch(`${stack.url}/sessions/${id}/messages/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${await stack.token()}` },
    body: JSON.stringify({ text: prompt }),
  });
  expect(other.status).toBe(200);
  await expect.poll(() => stack.fake.paused, { timeout: UI_MS }).toBe(1);
  return other;
}

/** A new owner with `count` untitled sessions, signed in: the page and its session list. */
async function signedInWithSessions(owner: string, count: number): Promise<{ page: Page; sessions: Locator }> {
  const token = await stack.token(owner);
  for (let index = 1; index <= count; index++) {
    const response = await fetch(`${stack.url}/sessions`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
    expect(response.status).toBe(201);
  }
  const page = await newPage();
  await signIn(page, `${stack.url}/#token=${token}`);
  return { page, sessions: page.getByRole('navigation', { name: 'Sessions' }) };
}

describe('the web client', { timeout: 60_000 }, () => {
  it('signs in with the printed link, keeps the token for the browser and takes it out of the address bar', async () => {
    const page = await newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await signIn(page);
    expect(page.url()).toBe(`${stack.url}/`);
    const token = stack.signInLink.split('#token=')[1];
    expect(await page.evaluate<string | null>("localStorage.getItem('panto.token')")).toBe(token);
    await expect.poll(() => page.getByRole('button', { name: 'New session', exact: true }).isVisible()).toBe(true);
    // Nothing failed on the way (a browser asks for /favicon.ico unless the page names an icon).
    await page.waitForTimeout(500);
    expect(errors).toEqual([]);
  });

  it('shows your usage today in the footer, read again after each turn', async () => {
    const { page } = await signedInWithSessions('ursula', 0);
    const usage = page.locator('[data-usage]');
    await expect.poll(() => usage.innerText(), { timeout: UI_MS }).toMatch(/^Today \$0\.0000.* · 0 turns · this month/);
    await createSession(page, 'Be brief.');
    stack.fake.enqueue({ text: 'Counted.', usage: { input: 10, output: 3 } });
    await sendWithKeyboard(page, 'Count me');
    await expect.poll(() => usage.innerText(), { timeout: UI_MS }).toMatch(/ · 1 turn[ ,]/);
  });

  it('signs in with a pasted token (Enter uses it), and says why a pasted non-token is refused', async () => {
    const page = await newPage();
    await page.goto(`${stack.url}/`);
    const box = page.getByRole('textbox', { name: 'Token' });
    await box.fill('not-a-token');
    await box.press('Enter');
    await expect.poll(() => page.getByRole('alert').innerText()).toContain('That is not a token');
    const token = await stack.token('frank');
    await box.fill(token);
    await box.press('Enter');
    await page.getByRole('navigation', { name: 'Sessions' }).waitFor();
    expect(await page.evaluate<string | null>("localStorage.getItem('panto.token')")).toBe(token);
  });

  it('creates a session, shows the answer arriving in parts before the turn ends, and the history after a reload', async () => {
    const page = await newPage();
    await signIn(page);
    await createSession(page, 'Answer briefly.');
    stack.fake.enqueue({ text: 'The first part arrives now, and the **second part** arrives later.', pauseAfterDeltas: 3, usage: { input: 21, output: 13 } });
    await sendWithKeyboard(page, 'Tell me in two parts');
    const id = await openSessionId(page);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('The first');
    // The turn has not ended: the rest is held back by the model, and the Stop button is up.
    expect(await transcript(page).innerText()).not.toContain('second part');
    expect(await page.getByRole('button', { name: 'Stop' }).isVisible()).toBe(true);
    stack.fake.resume();
    await page.getByRole('button', { name: 'Send' }).waitFor();
    await expect.poll(() => transcript(page).locator('strong').first().innerText(), { timeout: UI_MS }).toBe('second part');
    expect(await transcript(page).innerText()).toContain('21 in · 13 out');
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('arrives later.');
    expect(await transcript(page).innerText()).toContain('Tell me in two parts');
    // Usage per turn (above) and for the session, in the header.
    expect(await page.locator('.chat-header .session-meta').innerText()).toContain('this session: 21 in · 13 out');
    await expect.poll(() => page.getByRole('navigation', { name: 'Sessions' }).innerText()).toContain('Tell me in two parts');
    expect(new URL(page.url()).hash).toBe(`#session=${id}`);
  });

  it('is usable with the keyboard alone: a new session, its system prompt, a prompt and its answer without the mouse', async () => {
    const page = await newPage();
    await signIn(page);
    const focused = (): Promise<string> =>
      page.evaluate<string>("(document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '').trim()");
    const focusedId = (): Promise<string> => page.evaluate<string>('document.activeElement?.id ?? ""');
    for (let presses = 0; presses < 10 && (await focused()) !== 'New session'; presses++) await page.keyboard.press('Tab');
    expect(await focused()).toBe('New session');
    await page.keyboard.press('Enter');
    // A new session opens on its message box; Escape in the empty box leaves it, the focus back on New session.
    await expect.poll(focusedId).toBe('composer');
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(), { timeout: UI_MS }).toBe('New session');
    await page.keyboard.press('Enter');
    await expect.poll(focusedId).toBe('composer');
    // Back from the message box: the system prompt (opened with Enter), then its box.
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('System prompt');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('new-system');
    await page.keyboard.type('Be terse.');
    await page.keyboard.press('Tab');
    expect(await focusedId()).toBe('composer');
    stack.fake.enqueue({ text: 'Typed, not clicked.' });
    await page.keyboard.type('Hello from the keyboard');
    await page.keyboard.press('Enter');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Typed, not clicked.');
    expect(await transcript(page).locator('details.system').innerText()).toContain('System prompt');
    // The new chat keeps the cursor in its message box.
    await expect.poll(focusedId, { timeout: UI_MS }).toBe('composer');
  });

  it('offers the models of GET /models, the server’s default preselected and marked, and starts a session on another one', async () => {
    const page = await newPage();
    await signIn(page);
    await page.getByRole('button', { name: 'New session', exact: true }).click();
    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect.poll(() => picker.inputValue(), { timeout: UI_MS }).toBe('anthropic/claude-web');
    const token = stack.signInLink.split('#token=')[1] ?? '';
    const offered = (await (await fetch(`${stack.url}/models`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      providers: { name: string; any_model: boolean; models: { id: string; status: string | null }[] }[];
    };
    const options = await picker.locator('option').evaluateAll((all) => all.map((option) => (option as unknown as { value: string }).value));
    // Every model offered but the deprecated ones, and — for a provider with a base URL here (any_model) — a name of one's own.
    const values = options.filter((value) => !value.startsWith('other:'));
    const deprecated = offered.providers.flatMap((provider) =>
      provider.models.filter((model) => model.status === 'deprecated').map((model) => `${provider.name}/${model.id}`),
    );
    expect(values).toEqual(
      offered.providers.flatMap((provider) => provider.models.map((model) => `${provider.name}/${model.id}`)).filter((value) => !deprecated.includes(value)),
    );
    expect(options.filter((value) => value.startsWith('other:'))).toEqual(
      offered.providers.filter((provider) => provider.any_model).map((provider) => `other:${provider.name}`),
    );
    expect(offered.providers.find((provider) => provider.name === 'anthropic')?.any_model).toBe(true);
    // One "(default)": the server's, not each provider's.
    const labels = await picker.locator('option').allInnerTexts();
    expect(labels.filter((label) => label.includes('(default)'))).toEqual(['claude-web (default)']);
    expect(labels.some((label) => label.includes('(deprecated)'))).toBe(false);
    const other = values.find((value) => value !== 'anthropic/claude-web')!;
    await picker.selectOption(other);
    stack.fake.enqueue({ text: 'On the other model.' });
    await sendWithKeyboard(page, 'Which model are you?');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('On the other model.');
    // The chat's header shows it in its own Model select.
    await expect.poll(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), { timeout: UI_MS }).toBe(other);
  });

  it('stops a slow turn with the Stop button, keeping what the model wrote', async () => {
    const page = await newPage();
    await signIn(page);
    await createSession(page);
    stack.fake.enqueue({ text: 'This answer is slow and will never finish on its own.', pauseAfterDeltas: 2 });
    await sendWithKeyboard(page, 'Take your time');
    const id = await openSessionId(page);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('This answer');
    // With the keyboard: from the message box, Tab reaches Stop.
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement?.textContent ?? ""')).toBe('Stop');
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: 30_000 });
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Stopped.');
    // The disabled Stop button dropped the focus; the page puts it back in the message box.
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'), { timeout: UI_MS }).toBe('composer');
    const token = await stack.token('local-user');
    const session = (await (await fetch(`${stack.url}/sessions/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      messages: { role: string; stop_reason?: string }[];
      turn: unknown;
    };
    expect(session.turn).toBeNull();
    expect(session.messages.at(-1)).toMatchObject({ role: 'assistant', stop_reason: 'aborted' });
  });

  it('shows a second owner none of the first owner’s sessions', async () => {
    const first = await newPage();
    await signIn(first);
    const id = await startSession(first, stack.fake, { prompt: 'A private question', answer: 'For the first owner only.' });
    await expect.poll(() => first.getByRole('navigation', { name: 'Sessions' }).innerText()).toContain('A private question');

    const second = await newPage();
    await signIn(second, `${stack.url}/#token=${await stack.token('bob')}`);
    await expect.poll(() => second.getByRole('navigation', { name: 'Sessions' }).innerText()).toContain('No sessions yet.');
    await second.goto(`${stack.url}/#session=${id}`);
    await second.reload();
    await expect.poll(() => second.getByRole('alert').first().innerText(), { timeout: UI_MS }).toContain('This session is gone');
    // Nothing offers to act on a session that is not there.
    expect(await second.getByRole('heading', { level: 1 }).innerText()).toBe('Session not found');
    expect(await second.getByRole('textbox', { name: 'Message' }).count()).toBe(0);
    expect(await second.getByRole('button', { name: /^(Rename|Export|Compact|Delete)$/ }).count()).toBe(0);
    expect(await second.locator('body').innerText()).not.toContain('A private question');
    expect(await second.locator('body').innerText()).not.toContain('For the first owner only.');
  });

  it('shows HTML in a model answer as text: no dialog, no element created', async () => {
    const page = await newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await signIn(page);
    await createSession(page);
    // A button like the page's own Copy code (the one element it adds to markdown) stays text too.
    const evil = 'Before <img src=x onerror=alert(1)> middle <script>alert(2)</script> <button class="copy-code" onclick="alert(5)">Copy code</button> after';
    stack.fake.enqueue({ text: `${evil}\n\n<img src=y onerror="alert(3)">\n\n[link](javascript:alert(4))` });
    await sendAndWait(page, 'Say something dangerous');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('after');
    const text = await transcript(page).innerText();
    expect(text).toContain('<img src=x onerror=alert(1)>');
    expect(text).toContain('<script>alert(2)</script>');
    expect(await transcript(page).locator('img, script, iframe, object, embed').count()).toBe(0);
    expect(await transcript(page).locator('.markdown button').count()).toBe(0);
    expect(text).toContain('<button class="copy-code" onclick="alert(5)">Copy code</button>');
    expect(await transcript(page).locator('[onerror], [onclick], [onload]').count()).toBe(0);
    expect(await transcript(page).locator('a[href^="javascript:"]').count()).toBe(0);
    // The same after a reload, when the answer comes from the stored session rather than the stream.
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('after');
    expect(await transcript(page).locator('img, script').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('says so, in words, when a turn is already running on the session (409), and keeps the prompt', async () => {
    const page = await newPage();
    await signIn(page);
    const id = await startSession(page, stack.fake);
    // Another tab's turn, still being written by the model.
    const other = await otherTabTurn(id, 'From another tab', 'The other tab is answering slowly.');
    await sendWithKeyboard(page, 'Me too');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    await expect.poll(() => alert.innerText(), { timeout: UI_MS }).toContain('A turn is already running in this session');
    expect(await alert.innerText()).not.toMatch(/session_busy|409|\{/);
    expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe('Me too');
    // The page follows the other tab's turn to its end rather than claiming to stop it.
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('From another tab');
    expect(await page.getByText('Stopping the turn').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
    stack.fake.resume();
    await other.text();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('answering slowly.');
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('follows a running turn again when its connection drops, instead of claiming to stop it', async () => {
    const page = await newPage();
    await signIn(page);
    const id = await startSession(page, stack.fake);
    const other = await otherTabTurn(id, 'Started elsewhere', 'Still answering after the drop.');
    // The page's first connection to the turn's events is cut; the next ones go through.
    let attempts = 0;
    await page.route(/\/events\?from=/, async (route) => {
      if (attempts++ === 0) await route.abort('connectionreset');
      else await route.continue();
    });
    await page.reload();
    await expect.poll(() => attempts, { timeout: UI_MS }).toBeGreaterThanOrEqual(2);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Started elsewhere');
    expect(await page.getByText(/Stopping the turn|Waiting for the turn/).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Stop' }).isEnabled()).toBe(true);
    expect(await page.getByRole('alert').innerText()).toContain('The connection dropped');
    stack.fake.resume();
    await other.text();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('after the drop.');
    await page.getByRole('button', { name: 'Send' }).waitFor();
  });

  it('lists sessions newest first with title, age and model, and loads more on scroll', async () => {
    const { page, sessions } = await signedInWithSessions('carol', 23);
    const items = sessions.getByRole('listitem').filter({ hasText: 'claude-web' });
    await expect.poll(() => items.count(), { timeout: UI_MS }).toBe(20);
    expect(await items.first().innerText()).toMatch(/Untitled session\s+just now · claude-web/);
    // An untitled session is not a second "New session" button for a screen reader.
    expect(await page.getByRole('button', { name: 'New session', exact: true }).count()).toBe(1);
    await sessions.getByRole('button', { name: 'More sessions' }).scrollIntoViewIfNeeded();
    await expect.poll(() => items.count(), { timeout: UI_MS }).toBe(23);
    expect(await sessions.getByRole('button', { name: 'More sessions' }).count()).toBe(0);
  });

  it('keeps the sessions loaded on scroll when the list refreshes after a turn', async () => {
    const { page, sessions } = await signedInWithSessions('erin', 23);
    const items = sessions.locator('button.session');
    await expect.poll(() => items.count(), { timeout: UI_MS }).toBe(20);
    await sessions.getByRole('button', { name: 'More sessions' }).scrollIntoViewIfNeeded();
    await expect.poll(() => items.count(), { timeout: UI_MS }).toBe(23);
    // The fewest sessions the list shows from now on, whatever the scroll position does.
    await page.evaluate(`(() => {
      const list = document.querySelector('nav.sessions ul');
      const count = () => list.querySelectorAll('button.session').length;
      window.fewest = count();
      new MutationObserver(() => (window.fewest = Math.min(window.fewest, count()))).observe(list, { childList: true, subtree: true });
    })()`);
    await items.last().click();
    stack.fake.enqueue({ text: 'From the bottom of the list.' });
    await sendWithKeyboard(page, 'Hello from session 23');
    await expect.poll(() => sessions.innerText(), { timeout: UI_MS }).toContain('Hello from session 23');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('From the bottom of the list.');
    expect(await page.evaluate<number>('window.fewest')).toBe(23);
    expect(await items.count()).toBe(23);
  });

  it('renames, exports, compacts and deletes a session', async () => {
    const page = await newPage();
    await signIn(page);
    const id = await startSession(page, stack.fake, { prompt: 'Remember the number 42', answer: 'Noted.' });
    const sessions = page.getByRole('navigation', { name: 'Sessions' });

    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('textbox', { name: 'Title' }).fill('The answer');
    await page.keyboard.press('Enter');
    await expect.poll(() => sessions.innerText(), { timeout: UI_MS }).toContain('The answer');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('The answer');
    // The title box is gone; the focus is back on Rename, not lost to the page's start.
    await expect.poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""'), { timeout: UI_MS }).toBe('Rename');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""'), { timeout: UI_MS }).toBe('Rename');

    // The download opens from the bucket (s3rver here) in a new tab; this page stays.
    const download = page.context().waitForEvent('request', (request) => request.url().includes(`/exports/${id}/`));
    await page.getByRole('button', { name: 'Export' }).click();
    expect((await download).url()).toMatch(/X-Amz-Signature=/);
    // …and is saved as <session id>.jsonl, not as the key's timestamp.
    expect((await fetch((await download).url())).headers.get('content-disposition')).toBe(`attachment; filename="${id}.jsonl"`);
    expect(new URL(page.url()).hash).toBe(`#session=${id}`);

    stack.fake.enqueue({ text: 'The user asked to remember 42.' });
    // Both ask first, in the page's own dialog; Escape cancels.
    await page.getByRole('button', { name: 'Compact' }).click();
    await page.getByRole('dialog', { name: 'Compact this session?' }).waitFor();
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await transcript(page).innerText()).not.toContain('Compacted');
    await page.getByRole('button', { name: 'Compact' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Compact' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Compacted');

    await page.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this session?' });
    expect(await confirm.innerText()).toContain('The answer');
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => sessions.innerText(), { timeout: UI_MS }).not.toContain('The answer');
    expect(new URL(page.url()).hash).toBe('');
    await expect.poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""'), { timeout: UI_MS }).toBe('New session');
  });

  it('offers the unanswered prompt of a failed turn for resending', async () => {
    const page = await newPage();
    await signIn(page);
    await createSession(page);
    stack.fake.enqueue({ status: 400 });
    await sendWithKeyboard(page, 'Are you there?');
    await page.getByRole('button', { name: 'Resend' }).waitFor();
    // The prompt shows where it was sent, with what became of it, and nothing says to send a first message.
    expect(await transcript(page).innerText()).toContain('Are you there?');
    expect(await transcript(page).getByRole('status').innerText()).toContain('No answer');
    expect(await transcript(page).innerText()).not.toContain('Send a message to start.');
    await page.screenshot({ path: join(shots, 'failed-turn-1280.png') });
    stack.fake.enqueue({ text: 'Yes, I am here.' });
    await page.getByRole('button', { name: 'Resend' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Yes, I am here.');
    expect(await page.getByRole('button', { name: 'Resend' }).count()).toBe(0);
  });

  it('lays out the chat on a 360 px phone and a 1280 px desktop', async () => {
    const page = await newPage(1280);
    await signIn(page);
    await createSession(page, 'You are a helpful assistant. Use tools when asked.');
    stack.fake.enqueue(
      { toolCalls: [{ id: 'toolu_web_1', name: 'current_time', input: { time_zone: 'Europe/Paris' } }], usage: { input: 180, output: 22 } },
      {
        text: 'It is morning in Paris. Here is how to read the time in **TypeScript**:\n\n```ts\nconst now = new Date();\nconsole.log(now.toISOString()); // UTC\n```\n\n- `toISOString()` is always UTC\n- use `Intl.DateTimeFormat` for a time zone',
        usage: { input: 240, output: 64 },
      },
    );
    await sendAndWait(page, 'What time is it in Paris? use current_time, then show me the code');
    await expect.poll(() => transcript(page).locator('pre.code .hljs-keyword').count(), { timeout: UI_MS }).toBeGreaterThan(0);
    // Every highlighted token reads at WCAG AA (4.5:1) on the code block's background.
    const lowestContrast = await page.evaluate<number>(`(() => {
      const rgb = (color) => color.match(/[\\d.]+/g).slice(0, 3).map(Number);
      const lum = (channels) => channels
        .map((v) => v / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
        .reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
      let lowest = Infinity;
      for (const pre of document.querySelectorAll('pre.code')) {
        const background = lum(rgb(getComputedStyle(pre).backgroundColor));
        for (const token of pre.querySelectorAll('[class*="hljs-"]')) {
          const text = lum(rgb(getComputedStyle(token).color));
          lowest = Math.min(lowest, (Math.max(text, background) + 0.05) / (Math.min(text, background) + 0.05));
        }
      }
      return lowest;
    })()`);
    expect(lowestContrast).toBeGreaterThanOrEqual(4.5);
    const tool = transcript(page).locator('details.tool').first();
    expect(await tool.locator('summary').innerText()).toContain('current_time');
    await tool.locator('summary').click();
    expect(await tool.innerText()).toContain('Europe/Paris');

    const overflow = (): Promise<number> => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    const inView = async (name: 'Send' | 'Message'): Promise<boolean> => {
      const locator = name === 'Send' ? page.getByRole('button', { name: 'Send' }) : page.getByRole('textbox', { name: 'Message' });
      const box = await locator.boundingBox();
      const width = page.viewportSize()?.width ?? 0;
      return box !== null && box.x >= 0 && box.x + box.width <= width && box.width > 0;
    };
    expect(await page.getByRole('navigation', { name: 'Sessions' }).isVisible()).toBe(true);
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await inView('Message')).toBe(true);
    await page.screenshot({ path: join(shots, 'chat-1280.png') });

    await page.setViewportSize({ width: 360, height: 740 });
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(await inView('Message')).toBe(true);
    expect(await inView('Send')).toBe(true);
    await page.screenshot({ path: join(shots, 'chat-360.png') });
    // Renaming on a phone (from the session's menu): the title box gets a row of its own, not the sliver beside ‹ Sessions.
    await page.getByRole('button', { name: 'Session actions' }).click();
    await page.getByRole('button', { name: 'Rename' }).click();
    expect((await page.getByRole('textbox', { name: 'Title' }).boundingBox())?.width).toBeGreaterThan(180);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'rename-360.png') });
    await page.keyboard.press('Escape');
    // On a phone the list is one tap away, and fits too.
    await page.getByRole('button', { name: '‹ Sessions' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Sessions' }).waitFor();
    // Back in the list, the focus is on the session just left, not at the page's start.
    const focusedSession = "document.activeElement?.classList.contains('session') ? document.activeElement.textContent : ''";
    await expect.poll(() => page.evaluate<string>(focusedSession), { timeout: UI_MS }).toContain('What time is it in Paris?');
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'sessions-360.png') });
    // A notice on a phone keeps its dismiss button beside the sentence, not on a line of its own.
    await page.goto(`${stack.url}/#session=00000000-0000-0000-0000-000000000000`);
    await page.reload();
    const notice = page.getByRole('alert');
    await expect.poll(() => notice.innerText()).toContain('This session is gone');
    const text = await notice.locator('span').boundingBox();
    const dismiss = await notice.getByRole('button', { name: 'Dismiss' }).boundingBox();
    expect(dismiss!.y).toBeLessThan(text!.y + text!.height);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(shots, 'notice-360.png') });
  });
});
