/**
 * Tool approvals in the web client, in Chromium against the local stack (`npm start`'s
 * server) with a real MCP server: a turn that reaches a paying tool shows the call — the
 * tool, why it asks, its input — with Approve and Deny; the call is still shown after a
 * reload; Approve runs the tool and the answer goes on; Deny runs nothing.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSession, sendWithKeyboard, shots, signIn, transcript, UI_MS, useWebStack } from './web-harness.js';
import { startPaymentsServer, type PaymentsServer } from './support/payments-mcp-server.js';

let payments: PaymentsServer;
beforeAll(async () => {
  payments = await startPaymentsServer();
});
afterAll(async () => {
  await payments?.close();
});

const stack = useWebStack('web-approvals', {
  env: () => ({ PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { payments: { url: payments.url } } }) }),
});

describe('a tool call that waits for approval, in the browser', { timeout: 120_000 }, () => {
  it('shows the call with Approve and Deny, still after a reload; Approve runs the tool and the answer goes on', async () => {
    const page = await stack.newPage(1280);
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ text: 'I will pay Bob.', toolCalls: [{ id: 'toolu_web_pay', name: 'mcp__payments__pay', input: { to: 'bob', amount: 5 } }] });
    await sendWithKeyboard(page, 'Pay Bob 5 euros');
    const panel = page.getByRole('region', { name: 'Waiting for approval' });
    await panel.waitFor();
    const shown = await panel.innerText();
    expect(shown).toContain('mcp__payments__pay');
    expect(shown).toContain('Asks because the MCP server "payments" does not mark "pay" as read-only, so it may change something.');
    expect(shown).toContain('"amount": 5');
    expect(await transcript(page).innerText()).toContain('waiting for approval');
    expect(payments.payCalls()).toBe(0);
    await page.screenshot({ path: join(shots, 'approval-pending-1280.png') });

    await page.reload();
    await panel.waitFor();
    expect(await panel.innerText()).toContain('"to": "bob"');
    await page.screenshot({ path: join(shots, 'approval-after-reload-1280.png') });

    stack.fake.enqueue({ text: 'Paid Bob 5 euros.' });
    await panel.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('Paid Bob 5 euros.');
    await panel.waitFor({ state: 'detached' });
    expect(payments.payments).toEqual([{ tool: 'pay', to: 'bob', amount: 5 }]);
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor();
    await page.screenshot({ path: join(shots, 'approval-approved-1280.png') });
  });

  it('Deny runs nothing, and the model is told', async () => {
    const page = await stack.newPage(420);
    await signIn(page, stack.signInLink);
    await createSession(page);
    stack.fake.enqueue({ toolCalls: [{ id: 'toolu_web_deny', name: 'mcp__payments__pay', input: { to: 'eve', amount: 900 } }] });
    await sendWithKeyboard(page, 'Pay Eve 900 euros');
    const panel = page.getByRole('region', { name: 'Waiting for approval' });
    await panel.waitFor();
    await page.screenshot({ path: join(shots, 'approval-pending-420.png') });
    stack.fake.enqueue({ text: 'I did not pay Eve.' });
    await panel.getByRole('button', { name: 'Deny' }).click();
    await expect.poll(() => transcript(page).innerText(), { timeout: UI_MS }).toContain('I did not pay Eve.');
    expect(payments.payments.filter((payment) => payment.to === 'eve')).toEqual([]);
    expect(JSON.stringify(stack.fake.requests.at(-1)?.body)).toContain('Tool call denied');
  });
});
