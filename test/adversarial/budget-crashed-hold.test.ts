/**
 * Attacks "a crashed turn's reservation lapses like its slot: counted until its deadline and
 * a lease term have passed, then swept by the next turn it would refuse — and never given
 * back twice" (docs/aws.md, "The usage ledger"), and "`GET /usage` shows what is reserved".
 * The crashed turn's hold is written as a dead process leaves it; the zombie is a turn whose
 * hold another server swept while it still ran.
 */
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { periodsOf, sweepHolds } from '@panto/aws';
import { waitUntil } from '@panto/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApi, type ApiHarness } from '../api-harness.js';
import { ledgerTotals, usageReport } from '../support/ledger-items.js';

const MODEL = { provider: 'anthropic', model: 'claude-sonnet-5-5' };

describe('the hold of a turn that never settled', () => {
  let app: ApiHarness;
  beforeAll(async () => {
    app = await startApi('adv-crashed-hold', { usageLimits: { dailyUsd: 0.1, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null } });
  });
  afterAll(async () => app?.close());

  /** What a process that died mid-turn leaves on the owner's day and month: a hold, counted in `charged_usd` and `reserved_usd`. */
  async function leaveHold(owner: string, expiresAt: number, usd: number): Promise<string> {
    const name = `hold#${expiresAt}#crashed-${Math.random().toString(36).slice(2)}`;
    const periods = periodsOf(Date.now());
    for (const sk of [`USAGE#D#${periods.day}`, `USAGE#M#${periods.month}`]) {
      await app.aws.dynamo.send(
        new UpdateItemCommand({
          TableName: app.aws.tableName,
          Key: { pk: { S: `OWNER#${owner}` }, sk: { S: sk } },
          UpdateExpression: 'SET #hold = :usd ADD #charged :usd, #reserved :usd',
          ExpressionAttributeNames: { '#hold': name, '#charged': 'charged_usd', '#reserved': 'reserved_usd' },
          ExpressionAttributeValues: { ':usd': { N: String(usd) } },
        }),
      );
    }
    return name;
  }

  it('stops counting once lapsed: GET /usage shows none reserved, and the turn it would refuse sweeps it and runs', async () => {
    const { id } = await app.newSession('sara', MODEL);
    const dead = await leaveHold('sara', Date.now() - 3_600_000, 0.1255);
    expect((await usageReport(app, 'sara')).today.reserved_usd).toBe(0);
    app.fake.enqueue({ text: 'alive', usage: { input: 1000, output: 100 } });
    expect((await app.call('sara', 'POST', `/sessions/${id}/messages`, { text: 'is my budget back?' })).status).toBe(200);
    for (const period of ['day', 'month'] as const) {
      const totals = await ledgerTotals(app.aws, 'sara', period);
      expect(totals.holds.map((hold) => hold.name)).not.toContain(dead);
      expect(totals).toMatchObject({ reservedUsd: 0, turns: 1 });
      expect(totals.chargedUsd).toBeCloseTo(totals.usd, 10);
    }
  });

  it('counts one that has not lapsed (a turn still running elsewhere): shown by GET /usage, refusing a turn over the budget', async () => {
    const { id } = await app.newSession('tess', MODEL);
    await leaveHold('tess', Date.now() + 600_000, 0.2);
    expect((await usageReport(app, 'tess')).today.reserved_usd).toBe(0.2);
    const refused = await app.call('tess', 'POST', `/sessions/${id}/messages`, { text: 'over' });
    expect(refused.status).toBe(429);
    expect((await ledgerTotals(app.aws, 'tess')).reservedUsd).toBe(0.2);
  });

  it('is never given back twice: a turn whose hold was swept while it ran settles without it, and nothing goes negative', async () => {
    const { id } = await app.newSession('uma', MODEL);
    app.fake.enqueue({ text: 'slow and steady', usage: { input: 1000, output: 100 }, pauseAfterDeltas: 1 });
    const asked = app.fake.requests.length;
    const running = app.call('uma', 'POST', `/sessions/${id}/messages`, { text: 'take your time' });
    await waitUntil(() => app.fake.requests.length > asked, { message: 'the provider call', timeoutMs: 10_000 });
    // Another server judged it lapsed (its clock, say) and swept it from the day and the month.
    const { holds } = await ledgerTotals(app.aws, 'uma');
    expect(holds).toHaveLength(1);
    await sweepHolds(app.aws.dynamo, app.aws.tableName, 'uma', periodsOf(Date.now()), holds);
    expect((await ledgerTotals(app.aws, 'uma', 'month')).holds).toEqual([]);
    app.fake.resume();
    expect((await running).status).toBe(200);
    for (const period of ['day', 'month'] as const) {
      const totals = await ledgerTotals(app.aws, 'uma', period);
      expect(totals).toMatchObject({ reservedUsd: 0, holds: [], turns: 1 });
      expect(totals.usd).toBeCloseTo((1000 * 2 + 100 * 10) / 1e6, 10);
      expect(totals.chargedUsd).toBeCloseTo(totals.usd, 10);
    }
  });
});
