/**
 * The web client's branches, model and compaction, in Chromium against the local stack
 * (test/web-harness.ts): a prompt edited into a new branch and switched back, the active
 * branch kept over a reload, the Branches dialog, Fork; the model of an open session changed
 * from its header (a listed one, and a name of one's own where the server takes any); Compact
 * after a confirmation, with the earlier messages one click away.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createSession, openSessionId, sendAndWait, shots, signIn, startSession, transcript, UI_MS, useWebStack } from './web-harness.js';

const stack = useWebStack('web-branches');

/** The prompt bubble (with its Edit and switcher) that shows `text`. */
const promptRow = (page: Page, text: string) => transcript(page).locator('.prompt-row', { hasText: text });
const focusedLabel = (page: Page): Promise<string> =>
  page.evaluate<string>("(document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent ?? '').trim()");

/** The model the fake server was last asked for, and the user prompts it was sent. */
function lastRequest(): { model: string; prompts: string[] } {
  const body = stack.fake.requests.at(-1)?.body as { model: string; messages: { role: string; content: unknown }[] };
  const text = (content: unknown): string =>
    typeof content === 'string' ? content : (content as { type: string; text?: string }[]).map((block) => block.text ?? '').join('');
  return { model: body.model, prompts: body.messages.filter((message) => message.role === 'user').map((message) => text(message.content)) };
}

describe('branches in the web client', { timeout: 90_000 }, () => {
  it('edits an earlier prompt into a new branch, switches back, keeps the active branch over a reload, and forks it', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page, 'Answer briefly.');
    stack.fake.enqueue({ text: 'The first answer.' }, { text: 'The second answer, as first written.' });
    await sendAndWait(page, 'First question');
    const id = await openSessionId(page);
    await sendAndWait(page, 'Second question');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('as first written');
    // Nothing to switch between yet.
    expect(await transcript(page).getByRole('button', { name: 'Previous branch' }).count()).toBe(0);

    // Edit: the box opens on the prompt with the cursor in it; Escape gives the focus back to Edit.
    await promptRow(page, 'Second question').getByRole('button', { name: 'Edit' }).click();
    const box = page.getByRole('textbox', { name: 'Edit message' });
    await expect.poll(() => box.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    expect(await box.inputValue()).toBe('Second question');
    await page.keyboard.press('Escape');
    await expect.poll(() => focusedLabel(page)).toBe('Edit “Second question”');
    await page.keyboard.press('Enter');
    await expect.poll(() => box.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await box.fill('Second question, put differently');
    stack.fake.enqueue({ text: 'The second answer, on the new branch.', pauseAfterDeltas: 4 });
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    // The new version streams in the old one's place.
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('The second answer, on');
    expect(await transcript(page).innerText()).not.toContain('as first written');
    stack.fake.resume();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('on the new branch.');
    // The model saw the first turn and the edited prompt, not the old second one.
    expect(lastRequest().prompts, JSON.stringify(stack.fake.requests.map((request) => (request.body as { messages: unknown[] }).messages))).toEqual([
      'First question',
      'Second question, put differently',
    ]);
    const switcher = promptRow(page, 'put differently').locator('.versions');
    await expect.poll(() => switcher.innerText(), { timeout: UI_MS }).toMatch(/2 \/ 2/);
    expect(await promptRow(page, 'First question').locator('.versions').count()).toBe(0);
    await page.screenshot({ path: join(shots, 'branch-switcher-1280.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await promptRow(page, 'put differently').scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(shots, 'branch-switcher-360.png') });
    await page.setViewportSize({ width: 1280, height: 800 });

    // Previous branch: the old answer is back, "1 / 2", and the focus stays on the switcher.
    await switcher.getByRole('button', { name: 'Previous branch' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('as first written');
    expect(await transcript(page).innerText()).not.toContain('on the new branch.');
    await expect.poll(() => promptRow(page, 'Second question').locator('.versions').innerText()).toMatch(/1 \/ 2/);
    await expect.poll(() => focusedLabel(page)).toBe('Next branch');

    // A reload shows the branch switched to: the server's active one.
    await page.reload();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('as first written');
    await expect.poll(() => promptRow(page, 'Second question').locator('.versions').innerText(), { timeout: UI_MS }).toMatch(/1 \/ 2/);
    expect(await transcript(page).innerText()).not.toContain('on the new branch.');

    // Branches: both ends, with a preview and when each was last used; open the other one from there.
    await page.getByRole('button', { name: 'Branches' }).click();
    const tree = page.getByRole('dialog', { name: 'Branches' });
    await tree.waitFor();
    const rows = tree.getByRole('listitem');
    expect(await rows.count()).toBe(2);
    expect(await rows.nth(0).innerText()).toMatch(/as first written[\s\S]*shown now · last used just now/);
    expect(await rows.nth(1).innerText()).toMatch(/on the new branch[\s\S]*last used just now/);
    await page.screenshot({ path: join(shots, 'branches-1280.png') });
    await page.setViewportSize({ width: 360, height: 740 });
    await page.screenshot({ path: join(shots, 'branches-360.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    await rows
      .nth(1)
      .getByRole('button', { name: /on the new branch/ })
      .click();
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('on the new branch.');

    // Fork: the branch shown, copied into a new session of its own, which opens; the original stays.
    const sessions = page.getByRole('navigation', { name: 'Sessions' }).locator('button.session', { hasText: 'First question' });
    await expect.poll(() => sessions.count()).toBe(1);
    await page.getByRole('button', { name: 'Fork', exact: true }).click();
    await expect.poll(() => sessions.count(), { timeout: UI_MS }).toBe(2);
    await expect.poll(() => new URL(page.url()).hash, { timeout: UI_MS }).not.toBe(`#session=${id}`);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('on the new branch.');
    expect(await transcript(page).innerText()).not.toContain('as first written');
    const forked = decodeURIComponent(new URL(page.url()).hash.replace('#session=', ''));
    const original = await fetch(`${stack.url}/sessions/${id}`, { headers: { authorization: `Bearer ${await stack.token()}` } });
    expect(original.status).toBe(200);
    expect(forked).not.toBe(id);
  });

  it("changes the model of the next turn from the header: a listed one, and a name of one's own where the server takes any", async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    const id = await startSession(page, stack.fake);
    const stored = async (): Promise<string> => {
      const session = (await (await fetch(`${stack.url}/sessions/${id}`, { headers: { authorization: `Bearer ${await stack.token()}` } })).json()) as {
        active_model: { provider: string; model: string };
      };
      return `${session.active_model.provider}/${session.active_model.model}`;
    };
    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect.poll(() => picker.inputValue(), { timeout: UI_MS }).toBe('anthropic/claude-web');
    const listed = await picker
      .locator('option')
      .evaluateAll((options) =>
        options
          .map((option) => (option as unknown as { value: string }).value)
          .find((value) => value.startsWith('anthropic/claude-') && value !== 'anthropic/claude-web'),
      );
    await picker.selectOption(listed!);
    await expect.poll(stored, { timeout: UI_MS }).toBe(listed);
    await expect.poll(() => picker.isEnabled()).toBe(true);
    stack.fake.enqueue({ text: 'From the listed model.' });
    await sendAndWait(page, 'Which model?');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('From the listed model.');
    expect(lastRequest().model).toBe(listed!.slice('anthropic/'.length));
    expect(await picker.inputValue()).toBe(listed);

    // A model the catalog does not list: typed in, for a provider with a base URL here.
    await picker.selectOption('other:anthropic');
    const name = page.getByRole('textbox', { name: 'Model name' });
    await expect.poll(() => name.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true);
    await page.keyboard.type('my-own-model');
    await page.keyboard.press('Enter');
    await expect.poll(() => picker.inputValue(), { timeout: UI_MS }).toBe('anthropic/my-own-model');
    expect(await name.count()).toBe(0);
    stack.fake.enqueue({ text: 'From a model of my own.' });
    await sendAndWait(page, 'And now?');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('From a model of my own.');
    expect(lastRequest().model).toBe('my-own-model');
    await page.reload();
    await expect.poll(() => page.getByRole('combobox', { name: 'Model' }).inputValue(), { timeout: UI_MS }).toBe('anthropic/my-own-model');
  });

  it('compacts after a confirmation, and Show earlier messages brings back what the summary replaced', async () => {
    const page = await stack.newPage();
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'Noted: 42.' });
    await sendAndWait(page, 'Remember the number 42');
    stack.fake.enqueue({ text: 'The user asked to remember **42**.' });
    await page.getByRole('button', { name: 'Compact' }).click();
    const confirm = page.getByRole('dialog', { name: 'Compact this session?' });
    expect(await confirm.innerText()).toContain('Show earlier messages');
    // The dialog opens with the focus on Cancel: Enter alone changes nothing.
    await expect.poll(() => focusedLabel(page)).toBe('Cancel');
    await confirm.getByRole('button', { name: 'Compact' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Compacted');
    expect(await transcript(page).innerText()).toContain('The user asked to remember 42.');
    expect(await transcript(page).innerText()).not.toContain('Remember the number 42');

    const show = transcript(page).getByRole('button', { name: 'Show earlier messages' });
    expect(await show.getAttribute('aria-expanded')).toBe('false');
    await show.click();
    const earlier = transcript(page).getByRole('region', { name: 'Earlier messages' });
    await expect.poll(() => earlier.innerText(), { timeout: UI_MS }).toContain('Remember the number 42');
    expect(await earlier.innerText()).toContain('Noted: 42.');
    const hide = transcript(page).getByRole('button', { name: 'Hide earlier messages' });
    expect(await hide.getAttribute('aria-expanded')).toBe('true');
    await page.screenshot({ path: join(shots, 'compaction-1280.png') });
    await hide.click();
    await expect.poll(() => earlier.count()).toBe(0);
    // The next turn follows the summary, not the messages it replaced.
    stack.fake.enqueue({ text: 'It was 42.' });
    await sendAndWait(page, 'Which number?');
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('It was 42.');
    expect(lastRequest().prompts.some((prompt) => prompt.includes('Remember the number 42'))).toBe(false);
  });
});
