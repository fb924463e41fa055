import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { decodeHolds, decodeOverrides, decodeSlots, effectiveLimits, holdName, limitProblem, periodsOf, usdNumber, type OwnerLimits } from './ledger-items.js';
import {
  BUDGET_CONDITION,
  HOLD_HELD,
  LIMITS_AT_VERSION,
  LIMITS_UNCHANGED,
  NO_USAGE,
  RATE_CONDITION,
  RATE_UPDATE,
  reservationWrites,
  SLOT_FREE,
  SLOT_RELEASE,
  SLOT_TAKE,
  slotRelease,
  totalsWrite,
  USAGE_HOLD_UPDATE,
  USAGE_RELEASE_UPDATE,
  USAGE_UPDATE,
} from './ledger-writes.js';

const NONE: OwnerLimits = { dailyUsd: null, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };
const NOW = Date.UTC(2026, 11, 31, 23, 59, 30);
const periods = periodsOf(NOW);
/** What a hold's write adds: the dollars it holds, charged and reserved. */
const HOLD_ADDS = ' ADD #charged_usd :charged, #reserved_usd :reserved';

describe('the ledger expressions', () => {
  it('are these literal strings', () => {
    expect(BUDGET_CONDITION).toBe('(attribute_not_exists(#charged_usd) AND :zero < :limit) OR #charged_usd < :limit');
    expect(HOLD_HELD).toBe('attribute_exists(#hold)');
    expect(RATE_CONDITION).toBe('(attribute_not_exists(#turns) AND :zero < :limit) OR #turns < :limit');
    expect(RATE_UPDATE).toBe('SET #expires_at = :expires_at ADD #turns :one');
    expect(LIMITS_UNCHANGED).toBe('attribute_not_exists(#limits_version)');
    expect(LIMITS_AT_VERSION).toBe('#limits_version = :limits_version');
    expect(SLOT_FREE).toBe('(attribute_not_exists(#slots) AND :zero < :limit) OR size(#slots) < :limit');
    expect(SLOT_TAKE).toBe('ADD #slots :slot');
    expect(SLOT_RELEASE).toBe('DELETE #slots :slot');
    // Each write adds to the totals its delta changes, after these (see totalsWrite).
    expect(USAGE_UPDATE).toBe('SET #expires_at = :expires_at');
    expect(USAGE_HOLD_UPDATE).toBe('SET #expires_at = :expires_at, #hold = :hold');
    expect(USAGE_RELEASE_UPDATE).toBe('SET #expires_at = :expires_at REMOVE #hold');
  });
});

describe('the UTC periods', () => {
  it('name the day, month and minute of a moment and when each ends, across a year end', () => {
    expect(periods).toEqual({
      day: '2026-12-31',
      month: '2026-12',
      minute: '2026-12-31T23:59',
      dayEnds: Date.UTC(2027, 0, 1),
      monthEnds: Date.UTC(2027, 0, 1),
      minuteEnds: Date.UTC(2027, 0, 1),
    });
    expect(periodsOf(Date.UTC(2026, 1, 28, 12)).dayEnds).toBe(Date.UTC(2026, 2, 1));
  });

  it('writes dollars as fixed-point numbers DynamoDB adds exactly', () => {
    expect(usdNumber(3e-7)).toEqual({ N: '0.0000003000' });
    expect(usdNumber(-0.1)).toEqual({ N: '-0.1000000000' });
  });
});

describe('reservationWrites', () => {
  const hold = { name: holdName(5000, 'lease'), usd: 0.25 };
  const plan = { tableName: 't', owner: 'alice', periods, limitsVersion: null, hold, turn: true, slot: null };

  it('without limits, checks that the overrides are as this process knows them and takes the hold on the day and the month, unconditionally', () => {
    const { writes, checks } = reservationWrites({ ...plan, limits: NONE });
    expect(checks).toEqual(['gate', 'day', 'month']);
    expect(writes[0]).toEqual({
      ConditionCheck: {
        TableName: 't',
        Key: { pk: { S: 'OWNER#alice' }, sk: { S: 'USAGE#GATE' } },
        ConditionExpression: LIMITS_UNCHANGED,
        ExpressionAttributeNames: { '#limits_version': 'limits_version' },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    });
    const [day, month] = writes.slice(1).map((write) => write.Update!);
    expect(day).toMatchObject({ Key: { sk: { S: 'USAGE#D#2026-12-31' } }, UpdateExpression: USAGE_HOLD_UPDATE + HOLD_ADDS });
    expect(month).toMatchObject({ Key: { sk: { S: 'USAGE#M#2026-12' } }, UpdateExpression: USAGE_HOLD_UPDATE + HOLD_ADDS });
    for (const write of [day, month]) {
      expect(write?.ConditionExpression).toBeUndefined();
      expect(write?.ExpressionAttributeNames?.['#hold']).toBe('hold#5000#lease');
      expect(write?.ExpressionAttributeValues).toEqual({
        ':expires_at': expect.anything(),
        ':hold': { N: '0.2500000000' },
        ':charged': { N: '0.2500000000' },
        ':reserved': { N: '0.2500000000' },
      });
    }
  });

  it('with every limit, takes a slot, counts the minute and takes the hold on the day and the month, each conditioned on its limit', () => {
    const limits = { dailyUsd: 5, monthlyUsd: 100, turnsPerMinute: 10, concurrentTurns: 2 };
    const { writes, checks } = reservationWrites({ ...plan, limits, limitsVersion: 3, slot: '1000#lease' });
    expect(checks).toEqual(['gate', 'rate', 'day', 'month']);
    const [gate, rate, day, month] = writes.map((write) => write.Update!);
    expect(gate).toMatchObject({ UpdateExpression: SLOT_TAKE, ConditionExpression: `${LIMITS_AT_VERSION} AND (${SLOT_FREE})` });
    expect(gate?.ExpressionAttributeValues).toEqual({
      ':limits_version': { N: '3' },
      ':slot': { SS: ['1000#lease'] },
      ':zero': { N: '0' },
      ':limit': { N: '2' },
    });
    expect(rate).toMatchObject({ Key: { pk: { S: 'OWNER#alice' }, sk: { S: 'USAGE#R#2026-12-31T23:59' } }, ConditionExpression: RATE_CONDITION });
    expect(day).toMatchObject({
      Key: { sk: { S: 'USAGE#D#2026-12-31' } },
      UpdateExpression: USAGE_HOLD_UPDATE + HOLD_ADDS,
      ConditionExpression: BUDGET_CONDITION,
    });
    expect(day?.ExpressionAttributeValues?.[':limit']).toEqual({ N: '5.0000000000' });
    expect(month).toMatchObject({ Key: { sk: { S: 'USAGE#M#2026-12' } }, ConditionExpression: BUDGET_CONDITION });
    for (const write of [gate, rate, day, month]) expect(write?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });

  it('for a compaction (no turn), checks the gate and the budgets but takes no slot and counts no minute', () => {
    const limits = { dailyUsd: 5, monthlyUsd: null, turnsPerMinute: 10, concurrentTurns: 2 };
    const { writes, checks } = reservationWrites({ ...plan, limits, turn: false, slot: null });
    expect(checks).toEqual(['gate', 'day', 'month']);
    expect(writes[0]?.ConditionCheck?.ConditionExpression).toBe(LIMITS_UNCHANGED);
    expect(writes[1]?.Update?.ConditionExpression).toBe(BUDGET_CONDITION);
    expect(writes[2]?.Update?.ConditionExpression).toBeUndefined();
  });
});

describe('totalsWrite and slotRelease', () => {
  const target = { tableName: 't', owner: 'alice', periods };
  const delta = { ...NO_USAGE, usd: 0.5, chargedUsd: 0.25, reservedUsd: -0.25, inputTokens: 10, turns: 1 };

  it('adds usage without touching holds, unconditionally — only the totals it changes', () => {
    const write = totalsWrite(target, { period: 'month', delta, hold: null, limit: null }).Update!;
    expect(write).toMatchObject({
      Key: { sk: { S: 'USAGE#M#2026-12' } },
      UpdateExpression: `${USAGE_UPDATE} ADD #usd :usd, #charged_usd :charged, #reserved_usd :reserved, #input_tokens :input, #turns :turns`,
    });
    expect(write.ConditionExpression).toBeUndefined();
    expect(write.ExpressionAttributeValues).toEqual({
      ':expires_at': expect.anything(),
      ':usd': { N: '0.5000000000' },
      ':charged': { N: '0.2500000000' },
      ':reserved': { N: '-0.2500000000' },
      ':input': { N: '10' },
      ':turns': { N: '1' },
    });
    expect(Object.keys(write.ExpressionAttributeNames ?? {}).sort((a, b) => a.localeCompare(b))).toEqual([
      '#charged_usd',
      '#expires_at',
      '#input_tokens',
      '#reserved_usd',
      '#turns',
      '#usd',
    ]);
    const nothing = totalsWrite(target, { period: 'day', delta: NO_USAGE, hold: null, limit: null }).Update!;
    expect(nothing.UpdateExpression).toBe(USAGE_UPDATE);
  });

  it('moves a hold only while it is there and the budget holds; releases it only while it is there', () => {
    const moved = totalsWrite(target, { period: 'day', delta, hold: { type: 'move', name: 'hold#9#x', usd: 0.3 }, limit: 1 }).Update!;
    expect(moved.UpdateExpression).toMatch(new RegExp(`^${USAGE_HOLD_UPDATE} ADD `));
    expect(moved.ConditionExpression).toBe(`${HOLD_HELD} AND (${BUDGET_CONDITION})`);
    expect(moved.ExpressionAttributeNames?.['#hold']).toBe('hold#9#x');
    expect(moved.ExpressionAttributeValues).toMatchObject({ ':hold': { N: '0.3000000000' }, ':limit': { N: '1.0000000000' }, ':zero': { N: '0' } });
    const released = totalsWrite(target, { period: 'day', delta, hold: { type: 'release', name: 'hold#9#x' }, limit: null }).Update!;
    expect(released).toMatchObject({ ConditionExpression: HOLD_HELD, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' });
    expect(released.UpdateExpression?.startsWith(`${USAGE_RELEASE_UPDATE} ADD `)).toBe(true);
    expect(released.ExpressionAttributeValues?.[':hold']).toBeUndefined();
    expect(slotRelease('t', 'alice', '1000#lease').Update).toMatchObject({
      UpdateExpression: SLOT_RELEASE,
      ExpressionAttributeValues: { ':slot': { SS: ['1000#lease'] } },
    });
  });
});

describe('holds and limits', () => {
  it('reads the holds of a day item with their expiry and dollars', () => {
    const item: Record<string, AttributeValue> = { usd: { N: '1' }, 'hold#2000#a': { N: '0.125' }, 'hold#1000#b#c': { N: '0.5' } };
    expect(decodeHolds(item)).toEqual([
      { name: 'hold#2000#a', expiresAt: 2000, usd: 0.125 },
      { name: 'hold#1000#b#c', expiresAt: 1000, usd: 0.5 },
    ]);
    expect(decodeHolds(undefined)).toEqual([]);
  });

  it('refuses limits DynamoDB or the ledger cannot keep: huge, tiny but not 0, negative, fractional turns', () => {
    expect(limitProblem('dailyUsd', 1e308)).toMatch(/from 0 to 1000000/);
    expect(limitProblem('dailyUsd', 1e-200)).toMatch(/at least \$0\.0000000001/);
    expect(limitProblem('monthlyUsd', -1)).not.toBeNull();
    expect(limitProblem('monthlyUsd', Number.NaN)).not.toBeNull();
    expect(limitProblem('turnsPerMinute', 2.5)).toMatch(/whole number/);
    for (const [name, value] of [
      ['dailyUsd', 0],
      ['dailyUsd', 0.0001],
      ['monthlyUsd', 1_000_000],
      ['concurrentTurns', 3],
    ] as const) {
      expect(limitProblem(name, value)).toBeNull();
    }
  });
});

describe('the gate item', () => {
  const gate: Record<string, AttributeValue> = {
    limits_version: { N: '4' },
    limit_daily_usd: { N: '5' },
    limit_concurrent_turns: { NULL: true },
    slots: { SS: ['2000#b', '1000#a'] },
  };

  it('holds overrides (a number, or NULL for none) that win over the defaults, and slots with their expiry', () => {
    const overrides = decodeOverrides(gate);
    expect(overrides).toEqual({ version: 4, values: { dailyUsd: 5, concurrentTurns: null } });
    expect(effectiveLimits({ dailyUsd: 1, monthlyUsd: 50, turnsPerMinute: 3, concurrentTurns: 2 }, overrides)).toEqual({
      dailyUsd: 5,
      monthlyUsd: 50,
      turnsPerMinute: 3,
      concurrentTurns: null,
    });
    expect(decodeSlots(gate)).toEqual([
      { slot: '2000#b', expiresAt: 2000 },
      { slot: '1000#a', expiresAt: 1000 },
    ]);
    expect(decodeOverrides(undefined)).toEqual({ version: null, values: {} });
  });
});
