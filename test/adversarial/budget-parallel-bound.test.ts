/**
 * Attacks "however many turns run at once, across servers, a day's spend ends below the
 * budget plus one call's hold" and "no call can cost more than it held: every provider call
 * is sent the output cap the hold counted" (docs/aws.md, "The usage ledger"): 40 turns at
 * once on a $1 daily budget, half through each of two servers on one table, on the OpenAI
 * wire, each answer as long as the cap allows. (`npm run bench -- budget` measures the same
 * against two local-stack processes; see docs/adversarial.md.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTPUT_TOKEN_CAP } from '../../functions/src/agent/provider-resolver.js';
import { startApi, type ApiHarness } from '../api-harness.js';
import { ledgerTotals, usageReport } from '../support/ledger-items.js';

const BUDGET = 1;
const MODEL = { provider: 'openai', model: 'gpt-5.4' };
/** gpt-5.4's catalog prices, dollars per million tokens. */
const PRICES = { input: 2.5, output: 15 };
/** A call's hold for a fresh session: its prompt (well under 200 tokens) and 1,024 tokens of slack at the input price, the cap at the output price. */
const HOLD = ((200 + 1024) * PRICES.input + OUTPUT_TOKEN_CAP * PRICES.output) / 1e6;

describe('a $1 daily budget under 40 turns at once on two servers', () => {
  let one: ApiHarness;
  let two: ApiHarness;
  beforeAll(async () => {
    const usageLimits = { dailyUsd: BUDGET, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };
    one = await startApi('adv-bound', { usageLimits });
    two = await startApi('adv-bound', { usageLimits, aws: one.aws });
  });
  afterAll(async () => {
    await one?.close();
    await two?.close();
  });

  it('ends below the budget plus one hold; every call carried the cap; the refused are 429 budget_exceeded; nothing stays held', {
    timeout: 60_000,
  }, async () => {
    const servers = [one, two];
    const sessions = await Promise.all(Array.from({ length: 40 }, (_, n) => servers[n % 2]!.newSession('kira', MODEL)));
    for (const app of servers)
      for (let n = 0; n < 20; n++) app.fake.enqueue({ text: 'as long as allowed', usage: { input: 500, output: OUTPUT_TOKEN_CAP }, delayMs: 300 });
    const statuses = await Promise.all(
      sessions.map(async (session, n) => {
        const response = await servers[n % 2]!.call('kira', 'POST', `/sessions/${session.id}/messages`, { text: `parallel ${n}` });
        const body = (await response.json()) as { error?: { code: string } };
        return { status: response.status, code: body.error?.code };
      }),
    );
    const ran = statuses.filter((answer) => answer.status === 200).length;
    expect(ran).toBeGreaterThan(0);
    for (const answer of statuses) if (answer.status !== 200) expect(answer).toEqual({ status: 429, code: 'budget_exceeded' });
    const calls = [...one.fake.requests, ...two.fake.requests];
    expect(calls).toHaveLength(ran);
    for (const call of calls) expect(call.body).toMatchObject({ max_completion_tokens: OUTPUT_TOKEN_CAP });
    const day = await ledgerTotals(one.aws, 'kira');
    expect(day.usd).toBeLessThan(BUDGET + HOLD);
    // The budget was used, not refused early: it admitted all but less than one hold of it.
    expect(day.usd).toBeGreaterThan(BUDGET - 2 * HOLD);
    expect(day).toMatchObject({ reservedUsd: 0, holds: [], turns: ran });
    expect((await usageReport(two, 'kira')).today).toMatchObject({ turns: ran, reserved_usd: 0 });
  });
});
