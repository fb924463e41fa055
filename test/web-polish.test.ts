/**
 * The web client's finish, in Chromium against the local stack (test/web-harness.ts): the
 * dark scheme (the system's, and the Theme switch) with every text at WCAG AA in both themes;
 * Copy code and the language of every code block; emoji in colour; titles as plain text; the
 * first screen; the usage of a stopped turn; and the local API reference signed in from the
 * link `npm start` prints.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, lowestTextContrast, sendAndWait, sendWithKeyboard, shots, signIn, transcript, UI_MS, useWebStack } from './web-harness.js';

const stack = useWebStack('web-polish');

/** The relative luminance (WCAG) of the page's background. */
const backgroundLuminance = (page: Page): Promise<number> =>
  page.evaluate<number>(`(() => {
    const [r, g, b] = getComputedStyle(document.documentElement).backgroundColor.match(/[\\d.]+/g).map(Number);
    return [r, g, b].map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((sum, v, i) => sum + v * [0.2126, 0.7152, 0.0722][i], 0);
  })()`);

/** An answer with most of what the transcript can show: markdown, code in two languages, a tool call, a failed tool, usage. */
async function richChat(page: Page): Promise<void> {
  await createSession(page, 'Be helpful.');
  stack.fake.enqueue(
    { toolCalls: [{ id: 'toolu_polish_1', name: 'current_time', input: { time_zone: 'Europe/Paris' } }], usage: { input: 120, output: 12 } },
    {
      text: '## Time\n\nIt is *morning* — see [the docs](https://example.com) and `Date`:\n\n```ts\n// UTC\nconst now = new Date();\nconsole.log(now.toISOString(), 42, "text");\n```\n\n```diff\n- old\n+ new\n```\n\n> quoted\n\n- one\n- two',
      usage: { input: 200, output: 60 },
    },
  );
  await sendAndWait(page, 'What time is it? use current_time, then show me **code**');
  await expect.poll(() => transcript(page).locator('pre.code .hljs-keyword').count(), { timeout: UI_MS }).toBeGreaterThan(0);
}

describe('the web client, finished', { timeout: 90_000 }, () => {
  it('follows a dark system scheme and the Theme switch, every text at WCAG AA (4.5:1) in both themes', async () => {
    const page = await stack.newPage(1280, { colorScheme: 'dark' });
    await signIn(page, stack.signInLink);
    await richChat(page);
    await transcript(page).locator('details.tool summary').first().click();
    expect(await backgroundLuminance(page)).toBeLessThan(0.02);
    const dark = await lowestTextContrast(page);
    expect(dark.ratio, dark.where).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(shots, 'dark-1280.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    expect((await lowestTextContrast(page)).ratio).toBeGreaterThanOrEqual(4.5);
    await page.screenshot({ path: join(shots, 'dark-360.png') });
    await page.getByRole('button', { name: '‹ Sessions' }).click();
    await page.screenshot({ path: join(shots, 'dark-sessions-360.png') });
    await page.getByRole('navigation', { name: 'Sessions' }).locator('button.session').first().click();

    // The switch: Light, kept over a reload, in spite of the system's dark scheme; System follows it again.
    await page.setViewportSize({ width: 1280, height: 800 });
    const theme = page.getByRole('combobox', { name: 'Theme' });
    await theme.selectOption('light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
    await page.reload();
    await transcript(page).locator('pre.code').first().waitFor();
    expect(await theme.inputValue()).toBe('light');
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
    const light = await lowestTextContrast(page);
    expect(light.ratio, light.where).toBeGreaterThanOrEqual(4.5);
    await theme.selectOption('system');
    expect(await backgroundLuminance(page)).toBeLessThan(0.02);
    // And the system's light scheme: light.
    await page.emulateMedia({ colorScheme: 'light' });
    expect(await backgroundLuminance(page)).toBeGreaterThan(0.8);
  });

  it('puts a Copy code button and the language on every code block, and Copy code puts the code on the clipboard', async () => {
    const page = await stack.newPage(1280, { permissions: ['clipboard-read', 'clipboard-write'] });
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'Two blocks:\n\n```python\nprint("<b>hi</b>")\n```\n\n```\nplain text\n```' });
    await sendAndWait(page, 'Show me code');
    const blocks = transcript(page).locator('.code-block');
    await expect.poll(() => blocks.count(), { timeout: UI_MS }).toBe(2);
    expect(await blocks.nth(0).locator('.code-language').innerText()).toBe('python');
    expect(await blocks.nth(1).locator('.code-language').innerText()).toBe('text');
    const copy = blocks.nth(0).getByRole('button', { name: 'Copy code' });
    await copy.click();
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe('print("<b>hi</b>")');
    expect(await blocks.nth(0).getByRole('button').innerText()).toBe('Copied');
    // With the keyboard too.
    await blocks.nth(1).getByRole('button', { name: 'Copy code' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate<string>('navigator.clipboard.readText()')).toBe('plain text');
    await expect.poll(() => copy.innerText(), { timeout: 5_000 }).toBe('Copy code');
  });

  it('shows the usage a stopped turn ran up, not 0 in · 0 out', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    // The fake model reports no usage before the end: as OpenAI does, and as Anthropic does for the output.
    stack.fake.enqueue({ text: 'One two three four five six seven eight nine ten eleven twelve.', pauseAfterDeltas: 6 });
    await sendWithKeyboard(page, 'Count slowly');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('five');
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 30_000 });
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Stopped.');
    expect(await transcript(page).locator('.usage').last().innerText()).toMatch(/^[1-9][\d,]* in · [1-9][\d,]* out/);
  });

  it('shows emoji in colour, with a colour emoji font named by the font stack', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'Done 🎉 and checked ✅' });
    await sendAndWait(page, 'Celebrate 🥳');
    const answer = transcript(page).locator('.assistant .markdown p').first();
    await expect.poll(() => answer.innerText(), { timeout: UI_MS }).toContain('🎉');
    const family = await answer.evaluate((element) => element.ownerDocument.defaultView!.getComputedStyle(element).fontFamily);
    expect(family).toMatch(/Apple Color Emoji.*Segoe UI Emoji.*Noto Color Emoji/);
    // Drawn with the answer's own font: a colour glyph has pixels that are neither black nor grey; a box has none.
    const coloured = await answer.evaluate((element) => {
      const canvas = element.ownerDocument.createElement('canvas');
      canvas.width = 64;
      canvas.height = 64;
      const context = canvas.getContext('2d')!;
      context.font = `40px ${element.ownerDocument.defaultView!.getComputedStyle(element).fontFamily}`;
      context.fillStyle = '#000';
      context.fillText('🎉', 4, 48);
      const { data } = context.getImageData(0, 0, 64, 64);
      let count = 0;
      for (let i = 0; i < data.length; i += 4)
        if (data[i + 3]! > 0 && Math.max(data[i]!, data[i + 1]!, data[i + 2]!) - Math.min(data[i]!, data[i + 1]!, data[i + 2]!) > 60) count++;
      return count;
    });
    expect(coloured).toBeGreaterThan(50);
  });

  it('titles a session with the plain text of a markdown first prompt', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'On it.' });
    await sendAndWait(page, '# **Fix** the `parser` in _lexer.ts_');
    const listed = page.getByRole('navigation', { name: 'Sessions' }).locator('button.session[aria-current="page"] .session-title');
    await expect.poll(() => listed.innerText(), { timeout: UI_MS }).toBe('Fix the parser in lexer.ts');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Fix the parser in lexer.ts');
    expect(await page.title()).toBe('Fix the parser in lexer.ts · panto');
    // The prompt itself is shown as it was typed.
    expect(await transcript(page).locator('.prompt').first().innerText()).toBe('# **Fix** the `parser` in _lexer.ts_');
  });

  it('opens on a first screen that helps: a call to start a session, then the recent ones', async () => {
    const token = await stack.token('welcome-user');
    const page = await stack.newPage();
    await signIn(page, `${stack.url}/#token=${token}`);
    const main = page.getByRole('main');
    await expect.poll(() => main.getByRole('heading', { level: 1 }).innerText(), { timeout: UI_MS }).toBe('Your first session');
    expect(await main.getByRole('heading', { name: 'Recent sessions' }).count()).toBe(0);
    await main.getByRole('button', { name: 'Start a new session' }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    stack.fake.enqueue({ text: 'Hello.' });
    await sendAndWait(page, 'A first **hello**');
    await page.goto(`${stack.url}/`);
    await expect.poll(() => main.getByRole('heading', { level: 1 }).innerText(), { timeout: UI_MS }).toBe('Welcome back');
    const recent = main.getByRole('button', { name: /A first hello/ });
    await expect.poll(() => recent.count(), { timeout: UI_MS }).toBe(1);
    await page.screenshot({ path: join(shots, 'welcome-1280.png') });
    await recent.click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Hello.');
  });

  it('signs the local API reference in from the printed link: Try it out answers 200, not 401', async () => {
    const printed = /reference +(http:\/\/127\.0\.0\.1:\d+\/reference#token=[\w.-]+)/.exec(stack.server.output())?.[1];
    expect(printed).toBeDefined();
    const page = await stack.newPage();
    await page.goto(printed!);
    const operation = page.locator('.opblock-get', { has: page.locator('[data-path="/sessions"]') }).first();
    await operation.locator('.opblock-summary').click();
    // The token left the address bar (as the web client's does); deep linking names the operation there now.
    await expect.poll(() => page.url()).not.toContain('token=');
    await operation.getByRole('button', { name: 'Try it out' }).click();
    await operation.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => operation.locator('.live-responses-table tbody .response-col_status').first().innerText(), { timeout: UI_MS }).toBe('200');
    // A reload keeps the tab signed in.
    await page.reload();
    const again = page.locator('.opblock-get', { has: page.locator('[data-path="/sessions"]') }).first();
    // Deep linking (the operation is in the address) opens it once the document has loaded: wait for that, never race it.
    await again.locator('.opblock-body').waitFor();
    await again.getByRole('button', { name: 'Try it out' }).click();
    await again.getByRole('button', { name: 'Execute' }).click();
    await expect.poll(() => again.locator('.live-responses-table tbody .response-col_status').first().innerText(), { timeout: UI_MS }).toBe('200');
  });
});
