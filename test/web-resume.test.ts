/**
 * Resume mid-word, in Chromium against the local stack: a page reloaded while its turn is
 * still being written shows the answer as stored so far before the turn ends, follows it on,
 * and ends with the answer exactly once — no gap, no repeat.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSession, openSessionId, sendWithKeyboard, shots, signIn, transcript, UI_MS, useWebStack } from './web-harness.js';

const stack = useWebStack('web-resume');

const ANSWER = 'Alpha beta gamma delta epsilon zeta eta theta iota kappa lambda.';

describe('a reload in the middle of an answer', { timeout: 90_000 }, () => {
  it('shows the answer so far at once, then the rest, with nothing missing or repeated', async () => {
    const page = await stack.newPage(1280);
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: ANSWER, pauseAfterDeltas: 4 });
    await sendWithKeyboard(page, 'Recite the Greek letters, slowly');
    const id = await openSessionId(page);
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Alpha beta gamma delta');

    // The server stores the answer so far once the model has been writing for a second.
    const token = await stack.token();
    await expect
      .poll(
        async () => {
          const session = (await (await fetch(`${stack.url}/sessions/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
            turn: { partial: { message: { content: { text: string }[] } } | null } | null;
          };
          return session.turn?.partial?.message.content[0]?.text ?? null;
        },
        { timeout: UI_MS, interval: 200 },
      )
      .toBe('Alpha beta gamma delta');

    await page.reload();
    // Still paused on the server: what the page shows now came from the stored partial answer.
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Alpha beta gamma delta');
    await page.getByRole('button', { name: 'Stop' }).waitFor();
    await page.screenshot({ path: join(shots, 'resume-mid-answer-1280.png') });

    stack.fake.resume();
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain(ANSWER);
    const text = await transcript(page).innerText();
    expect(text.split('Alpha beta').length - 1).toBe(1);
    expect(text.split('lambda.').length - 1).toBe(1);
  });
});
