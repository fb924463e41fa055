/**
 * The answers and the small things around them, in Chromium against the local stack with two
 * providers (Anthropic and OpenAI, both the fake model server; test/web-harness.ts): Copy and
 * Retry under each answer, the model of each once a session used two, what the whole session
 * used (not one branch), the streaming cursor on the line being written, a quote's bar, one
 * "(default)" model and no deprecated one, the footer in words, and a phone's header and
 * message box. Screenshots in test-results/web/.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, lowestTextContrast, sendAndWait, sendWithKeyboard, shots, signIn, transcript, UI_MS, useWebStack } from './web-harness.js';

const stack = useWebStack('web-answers', { env: () => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: 'FAKE_URL/v1' }) });

const sessionUsage = (page: Page) => page.locator('.chat-header .session-usage');
const answers = (page: Page) => transcript(page).locator('.answer');

describe('answers in the web client', { timeout: 90_000 }, () => {
  it('puts Copy and Retry under each answer, counts every branch in what the session used, and names the model once there are two', async () => {
    const page = await stack.newPage(1280, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue(
      { text: 'First, the time.', toolCalls: [{ id: 'toolu_answer_1', name: 'current_time', input: {} }], usage: { input: 100, output: 10 } },
      { text: 'It is **noon**.', usage: { input: 50, output: 5 } },
    );
    await sendAndWait(page, 'What time is it? use current_time');
    const bar = answers(page).last().locator('.answer-bar');
    await expect.poll(() => bar.innerText(), { timeout: UI_MS }).toContain('150 in · 15 out');
    await expect.poll(() => sessionUsage(page).innerText(), { timeout: UI_MS }).toBe('this session: 150 in · 15 out');

    // Copy: the whole answer — both of its messages — as the model wrote it.
    await bar.getByRole('button', { name: 'Copy answer' }).click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe('First, the time.\n\nIt is **noon**.');
    expect(await bar.getByRole('button', { name: 'Copy answer' }).innerText()).toBe('Copied');

    // Retry: a new answer to the same prompt, on a branch of its own; the first one stays.
    stack.fake.enqueue({ text: 'Noon, again.', usage: { input: 120, output: 20 } });
    await bar.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Noon, again.');
    const switcher = transcript(page).locator('.versions');
    await expect.poll(() => switcher.innerText(), { timeout: UI_MS }).toMatch(/2 \/ 2/);
    // The session used both answers' tokens; the branch shown used only the second's.
    await expect.poll(() => sessionUsage(page).innerText(), { timeout: UI_MS }).toBe('this session: 270 in · 35 out');
    expect(await answers(page).last().locator('.usage').innerText()).toBe('120 in · 20 out');
    await switcher.getByRole('button', { name: 'Previous branch' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('It is noon.');
    expect(await sessionUsage(page).innerText()).toBe('this session: 270 in · 35 out');
    // One model so far: none is named.
    expect(await transcript(page).locator('.answer-model').count()).toBe(0);

    // A second model: each answer says which wrote it.
    const picker = page.getByRole('combobox', { name: 'Model' });
    const openai = await picker.locator('option[value^="openai/"]').first().getAttribute('value');
    await picker.selectOption(openai!);
    await expect.poll(() => picker.isEnabled(), { timeout: UI_MS }).toBe(true);
    stack.fake.enqueue({ text: 'From the other model.' });
    await sendAndWait(page, 'And you?');
    await expect
      .poll(() => transcript(page).locator('.answer-model').allInnerTexts(), { timeout: UI_MS })
      .toEqual(['claude-web', openai!.slice('openai/'.length)]);
    await page.screenshot({ path: join(shots, 'answer-buttons-1280.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    const contrast = await lowestTextContrast(page);
    expect(contrast.ratio, contrast.where).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(shots, 'answer-buttons-dark-1280.png') });
  });

  it('keeps the streaming cursor on the line being written, and draws a bar beside a quote', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: '> Quoted, as asked.\n\nAnd then the words go on and on', pauseAfterDeltas: 8 });
    await sendWithKeyboard(page, 'Quote something, then go on');
    const live = transcript(page).locator('.live');
    await expect.poll(() => live.locator('p').count(), { timeout: UI_MS }).toBe(2);
    // The cursor is inside the last paragraph, after its last word: on that line, not below it.
    const cursor = await live.locator('.cursor').boundingBox();
    const paragraph = await live.locator('.markdown > p').last().boundingBox();
    expect(cursor).not.toBeNull();
    expect(await live.locator('.markdown > p').last().locator('.cursor').count()).toBe(1);
    expect(cursor!.y + cursor!.height).toBeLessThanOrEqual(paragraph!.y + paragraph!.height + 1);
    expect(cursor!.x).toBeGreaterThan(paragraph!.x);
    await page.screenshot({ path: join(shots, 'streaming-cursor-1280.png') });
    stack.fake.resume();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    const quote = transcript(page).locator('blockquote').first();
    const style = (property: 'borderLeftStyle' | 'borderLeftWidth') =>
      quote.evaluate((element, name) => element.ownerDocument.defaultView!.getComputedStyle(element)[name], property);
    expect(await style('borderLeftStyle')).toBe('solid');
    expect(Number.parseFloat(await style('borderLeftWidth'))).toBeGreaterThanOrEqual(2);
    expect(await transcript(page).locator('.cursor').count()).toBe(0);
  });

  it('marks one model "(default)" among two providers, offers no deprecated one, and says unknown costs in words', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    const picker = page.getByRole('combobox', { name: 'Model' });
    const labels = await picker.locator('option').allInnerTexts();
    expect(labels.filter((label) => label.includes('(default)'))).toEqual(['claude-web (default)']);
    const token = await stack.token();
    const offered = (await (await fetch(`${stack.url}/models`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      providers: { name: string; models: { id: string; status: string | null }[] }[];
    };
    expect(offered.providers.map((provider) => provider.name)).toEqual(expect.arrayContaining(['anthropic', 'openai']));
    const values = await picker.locator('option').evaluateAll((all) => all.map((option) => (option as unknown as { value: string }).value));
    for (const provider of offered.providers)
      for (const model of provider.models) expect(values.includes(`${provider.name}/${model.id}`)).toBe(model.status !== 'deprecated');
    expect(labels.some((label) => label.includes('(deprecated)'))).toBe(false);
    stack.fake.enqueue({ text: 'Priced or not.' });
    await sendAndWait(page, 'Count this');
    const usage = page.locator('[data-usage]');
    await expect.poll(() => usage.innerText(), { timeout: UI_MS }).toMatch(/cost unknown/);
    expect(await usage.innerText()).not.toContain('unpriced');
    expect(await usage.getAttribute('title')).toMatch(/without a known price/);
  });

  for (const scheme of ['light', 'dark'] as const) {
    it(`fits a phone's header on one line above the chat, the actions in a menu, and sends with Send on a touch screen (${scheme})`, async () => {
      const page = await stack.newPage(390, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, colorScheme: scheme });
      await signIn(page, stack.signInLink);
      await createSession(page);
      stack.fake.enqueue({ text: 'An answer that fits.' });
      await page.getByRole('textbox', { name: 'Message' }).fill('A question from a phone');
      await page.getByRole('button', { name: 'Send', exact: true }).tap();
      await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('An answer that fits.');
      await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
      const header = await page.locator('.chat-header').boundingBox();
      expect(header!.height / 844).toBeLessThan(0.1);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      expect(await page.getByRole('button', { name: 'Rename' }).isVisible()).toBe(false);
      const contrast = await lowestTextContrast(page);
      expect(contrast.ratio, contrast.where).toBeGreaterThanOrEqual(4.5);
      await page.screenshot({ path: join(shots, `phone-header-${scheme}-390.png`) });
      const menu = page.getByRole('button', { name: 'Session actions' });
      await menu.tap();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      for (const name of ['Fork', 'Rename', 'Export', 'Compact', 'Delete'])
        expect(await page.getByRole('button', { name, exact: true }).isVisible()).toBe(true);
      await page.screenshot({ path: join(shots, `phone-menu-${scheme}-390.png`) });
      await page.keyboard.press('Escape');
      expect(await page.getByRole('button', { name: 'Rename' }).isVisible()).toBe(false);

      // No Shift key on a touch screen: the hint does not name one, and Enter starts a new line.
      const box = page.getByRole('textbox', { name: 'Message' });
      expect(await box.getAttribute('placeholder')).toBe('Message');
      await box.tap();
      await page.keyboard.type('First line');
      await page.keyboard.press('Enter');
      await page.keyboard.type('second line');
      expect(await box.inputValue()).toBe('First line\nsecond line');
      expect(await transcript(page).innerText()).not.toContain('First line');
      stack.fake.enqueue({ text: 'Both lines arrived.' });
      await page.getByRole('button', { name: 'Send', exact: true }).tap();
      await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Both lines arrived.');
    });
  }
});
