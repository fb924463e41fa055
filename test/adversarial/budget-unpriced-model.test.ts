/**
 * Attacks "while a dollar budget applies, no turn runs on a model whose spend cannot be
 * counted" (docs/api.md, "Limits"; docs/deploy.md, `PANTO_MODEL_PRICES`): a provider with a
 * base URL takes any model name, so a client names a dated snapshot the catalog has no price
 * for (`gpt-5.4-2026-03-05`) — by a turn, a streamed turn and a compaction.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../api-harness.js';
import { storedPrompts, usageReport } from '../support/ledger-items.js';
import { userCommand } from '../support/user-command.js';

const SNAPSHOT = { provider: 'openai', model: 'gpt-5.4-2026-03-05' };
const LIMITS = { dailyUsd: 1, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };

describe('a model without a known price under a dollar budget', () => {
  let app: ApiHarness;
  let priced: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-unpriced', { usageLimits: LIMITS });
    // The same table behind a server whose operator gave the snapshot's price.
    priced = await startApi('adv-unpriced', {
      usageLimits: LIMITS,
      aws: app.aws,
      modelPrices: { 'openai/gpt-5.4-2026-03-05': { input: 2.5, output: 15, cacheRead: 0.25, cacheWrite: 2.5 } },
    });
  });
  afterAll(async () => {
    await app?.close();
    await priced?.close();
  });

  it('is refused with 422 model_price_unknown naming the model — turn, streamed turn and compaction — with nothing stored or called', async () => {
    const { id } = await app.newSession('lena', SNAPSHOT);
    // Nothing is queued: a turn that reached the provider anyway would fail there (502), not answer 422.
    for (const path of [`/sessions/${id}/messages`, `/sessions/${id}/messages/stream`, `/sessions/${id}/compact`]) {
      const response = await app.call('lena', 'POST', path, path.endsWith('compact') ? {} : { text: 'on the house?' });
      expect(response.status, path).toBe(422);
      const { error } = (await response.json()) as { error: { code: string; message: string; field?: string } };
      expect(error).toMatchObject({ code: 'model_price_unknown', field: 'model' });
      expect(error.message).toContain('openai/gpt-5.4-2026-03-05');
      expect(error.message).toContain('PANTO_MODEL_PRICES');
    }
    expect(app.fake.requests).toHaveLength(0);
    expect(await storedPrompts(app, 'lena', id)).toBe(0);
    expect((await usageReport(app, 'lena')).today).toMatchObject({ usd: 0, turns: 0, reserved_usd: 0 });
  });

  it('runs once the operator gives its price, counted at that price; runs unpriced only for an owner with no dollar budget', async () => {
    const { id } = await priced.newSession('mona', SNAPSHOT);
    priced.fake.enqueue({ text: 'priced now', usage: { input: 1000, output: 100 } });
    expect((await priced.call('mona', 'POST', `/sessions/${id}/messages`, { text: 'and now?' })).status).toBe(200);
    expect((await usageReport(priced, 'mona')).today.usd).toBeCloseTo((1000 * 2.5 + 100 * 15) / 1e6, 10);

    const free = await app.newSession('nico', SNAPSHOT);
    expect(await userCommand(app.aws.tableName, ['limits', 'nico', '--daily-usd', 'none'])).toMatchObject({ code: 0 });
    app.fake.enqueue({ text: 'no budget, no price', usage: { input: 10, output: 10 } });
    expect((await app.call('nico', 'POST', `/sessions/${free.id}/messages`, { text: 'hello' })).status).toBe(200);
    expect((await usageReport(app, 'nico')).today).toMatchObject({ usd: 0, turns: 1, usd_unknown_turns: 1 });
    // A budget set again refuses it from the next turn on.
    expect(await userCommand(app.aws.tableName, ['limits', 'nico', '--daily-usd', '5'])).toMatchObject({ code: 0 });
    expect((await app.call('nico', 'POST', `/sessions/${free.id}/messages`, { text: 'again' })).status).toBe(422);
  });
});
