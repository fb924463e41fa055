/**
 * Attacks "a provider's usage is recorded as sane, non-negative whole numbers — counted more,
 * never less" (docs/providers.md, "Usage"; docs/aws.md, "The usage ledger"): an
 * OpenAI-compatible server of one's own reports negative, fractional and absurd token
 * counts, to lower the owner's spend, overflow it, or break the API's answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startApi, type ApiHarness } from '../api-harness.js';
import { ledgerTotals, usageReport } from '../support/ledger-items.js';

const MODEL = { provider: 'openai', model: 'gpt-5.4' };
/** gpt-5.4: $2.50 / $15 per million input / output tokens. */
const cost = (input: number, output: number): number => (input * 2.5 + output * 15) / 1e6;

describe('usage a provider reports that is not sane', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-hostile-usage', { usageLimits: { dailyUsd: 5, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('counts a negative count as 0 and a fraction rounded up, in the ledger and the session alike: the spend never goes down', async () => {
    const { id } = await app.newSession('quinn', MODEL);
    app.fake.enqueue({ text: 'cheap?', usage: { input: 1000, output: -1e8 } }, { text: 'halves', usage: { input: 0.5, output: 10 } });
    expect((await app.call('quinn', 'POST', `/sessions/${id}/messages`, { text: 'one' })).status).toBe(200);
    expect((await app.call('quinn', 'POST', `/sessions/${id}/messages`, { text: 'two' })).status).toBe(200);
    const today = (await usageReport(app, 'quinn')).today;
    expect(today).toMatchObject({ input_tokens: 1001, output_tokens: 10, turns: 2, reserved_usd: 0 });
    expect(today.usd).toBeCloseTo(cost(1001, 10), 10);
    const day = await ledgerTotals(app.aws, 'quinn');
    expect(day.chargedUsd).toBeCloseTo(day.usd, 10);
    const session = await json<{ usage: Record<string, number> }>(await app.call('quinn', 'GET', `/sessions/${id}`), 200);
    expect(session.usage).toEqual({ input_tokens: 1001, output_tokens: 10, cache_read_tokens: 0, cache_write_tokens: 0 });
  });

  it('counts an absurd count as 10 million tokens: charged (the budget stops the next turn), never overflowing the totals', async () => {
    const { id } = await app.newSession('rhea', MODEL);
    app.fake.enqueue({ text: 'expensive', usage: { input: 10, output: 1e15 } });
    expect((await app.call('rhea', 'POST', `/sessions/${id}/messages`, { text: 'one' })).status).toBe(200);
    const today = (await usageReport(app, 'rhea')).today;
    expect(today.output_tokens).toBe(10_000_000);
    expect(today.usd).toBeCloseTo(cost(10, 10_000_000), 6);
    const next = await app.call('rhea', 'POST', `/sessions/${id}/messages`, { text: 'two' });
    expect(next.status).toBe(429);
    // The next turn's hold is sized from the session's context, which counts the same sane numbers.
    expect((await ledgerTotals(app.aws, 'rhea')).holds).toEqual([]);
  });
});
