/**
 * Attacks "a limit set at any moment applies from the owner's next turn, counting what turns
 * already running hold" and "a reservation never goes negative" (docs/aws.md, "The usage
 * ledger"): an owner spends with no limit at all, then the operator sets a daily budget below
 * what was spent — and, while a turn runs, one above what was spent but below what that turn holds.
 */
import { waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../api-harness.js';
import { ledgerTotals, storedPrompts, usageReport } from '../support/ledger-items.js';
import { userCommand } from '../support/user-command.js';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };

describe('a limit set after the owner spent', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-late-limit');
  });
  afterAll(async () => app?.close());

  it('refuses the next turn with 429 budget_exceeded, storing nothing; no reservation in the ledger ever goes negative', async () => {
    const { id } = await app.newSession('ivan', MODEL);
    for (let n = 0; n < 3; n++) {
      app.fake.enqueue({ text: `answer ${n}`, usage: { input: 1000, output: 100 } });
      expect((await app.call('ivan', 'POST', `/sessions/${id}/messages`, { text: `turn ${n}` })).status).toBe(200);
      // Without a limit a turn still holds and gives back exactly what it held: nothing is left over, in either direction.
      for (const period of ['day', 'month'] as const) {
        const totals = await ledgerTotals(app.aws, 'ivan', period);
        expect(totals.reservedUsd, `${period} after turn ${n}`).toBe(0);
        expect(totals.chargedUsd).toBeCloseTo(totals.usd, 9);
        expect(totals.holds).toEqual([]);
      }
    }
    const spent = (await usageReport(app, 'ivan')).today.usd;
    expect(spent).toBeGreaterThan(0.0001);
    expect(await userCommand(app.aws.tableName, ['limits', 'ivan', '--daily-usd', '0.0001'])).toMatchObject({ code: 0 });
    const before = app.fake.requests.length;
    const refused = await app.call('ivan', 'POST', `/sessions/${id}/messages`, { text: 'over the new limit' });
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    expect(app.fake.requests.length, 'no provider call').toBe(before);
    expect(await storedPrompts(app, 'ivan', id)).toBe(3);
    const report = await usageReport(app, 'ivan');
    expect(report.today).toMatchObject({ usd: spent, reserved_usd: 0, turns: 3 });
    expect(report.limits.daily_usd).toBe(0.0001);
  });

  it('counts what a turn already running holds: a budget above what was spent refuses the next turn while that one runs', async () => {
    const ids = [(await app.newSession('jade', MODEL)).id, (await app.newSession('jade', MODEL)).id];
    // A turn started with no limit; its provider is still writing when the operator acts.
    app.fake.enqueue({ text: 'one two three four', usage: { input: 1000, output: 100 }, pauseAfterDeltas: 1 });
    const asked = app.fake.requests.length;
    const running = app.call('jade', 'POST', `/sessions/${ids[0]}/messages`, { text: 'a long one' });
    await waitUntil(() => app.fake.requests.length > asked, { message: 'the provider call', timeoutMs: 10_000 });
    const { holds } = await ledgerTotals(app.aws, 'jade');
    expect(holds).toHaveLength(1);
    expect((await usageReport(app, 'jade')).today.reserved_usd).toBeCloseTo(holds[0]!.usd, 9);
    // Above everything spent (nothing yet), below what the running turn holds.
    expect(await userCommand(app.aws.tableName, ['limits', 'jade', '--daily-usd', String(holds[0]!.usd / 2)])).toMatchObject({ code: 0 });
    const refused = await app.call('jade', 'POST', `/sessions/${ids[1]}/messages`, { text: 'meanwhile' });
    expect(refused.status).toBe(429);
    app.fake.resume();
    expect((await running).status).toBe(200);
    const after = await ledgerTotals(app.aws, 'jade');
    expect(after).toMatchObject({ reservedUsd: 0, holds: [], turns: 1 });
    expect(after.chargedUsd).toBeCloseTo(after.usd, 9);
  });
});
