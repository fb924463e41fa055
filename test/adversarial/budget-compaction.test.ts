/**
 * Attacks "compaction is spend: it passes the same budget check as a turn, before its
 * provider call" (docs/aws.md, "Compactions"): an owner whose budget is spent asks for
 * compaction after compaction, each a provider call of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness, json } from '../api-harness.js';
import { ledgerTotals, usageReport } from '../support/ledger-items.js';

/** claude-sonnet-5-5: $2 / $10 per million input / output tokens at the catalog's prices. */
const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };

describe('compaction after the budget is spent', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-compaction', { usageLimits: { dailyUsd: 0.01, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('is refused with 429 budget_exceeded before any provider call, again and again, and writes nothing', async () => {
    const { id } = await app.newSession('olga', MODEL);
    let status = 200;
    for (let n = 0; status === 200 && n < 10; n++) {
      app.fake.enqueue({ text: `answer ${n}`, usage: { input: 1000, output: 100 } });
      status = (await app.call('olga', 'POST', `/sessions/${id}/messages`, { text: `turn ${n}` })).status;
    }
    expect(status).toBe(429);
    const spent = await ledgerTotals(app.aws, 'olga');
    const entries = (await json<{ entry_count: number }>(await app.call('olga', 'GET', `/sessions/${id}`), 200)).entry_count;
    const calls = app.fake.requests.length;
    // No summary is queued: a compaction that called the provider anyway would fail there (502), not answer 429.
    for (let n = 0; n < 6; n++) {
      const response = await app.call('olga', 'POST', `/sessions/${id}/compact`, {});
      expect(response.status).toBe(429);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    }
    expect(app.fake.requests.length, 'no provider call').toBe(calls);
    expect((await json<{ entry_count: number }>(await app.call('olga', 'GET', `/sessions/${id}`), 200)).entry_count).toBe(entries);
    const after = await ledgerTotals(app.aws, 'olga');
    expect(after).toMatchObject({ usd: spent.usd, chargedUsd: spent.chargedUsd, holds: [] });
  });
});

describe('compaction under the budget', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-compaction-under', { usageLimits: { dailyUsd: 5, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  it('holds for its call and settles at what the summary cost; it is no turn', async () => {
    const { id } = await app.newSession('pia', MODEL);
    app.fake.enqueue({ text: 'an answer', usage: { input: 1000, output: 100 } }, { text: 'The summary.', usage: { input: 2000, output: 200 } });
    expect((await app.call('pia', 'POST', `/sessions/${id}/messages`, { text: 'hello' })).status).toBe(200);
    const before = (await usageReport(app, 'pia')).today;
    expect((await app.call('pia', 'POST', `/sessions/${id}/compact`, {})).status).toBe(200);
    const after = (await usageReport(app, 'pia')).today;
    expect(after.usd - before.usd).toBeCloseTo((2000 * 2 + 200 * 10) / 1e6, 10);
    expect(after).toMatchObject({ turns: 1, reserved_usd: 0, input_tokens: before.input_tokens + 2000 });
    expect((await ledgerTotals(app.aws, 'pia')).holds).toEqual([]);
  });
});
