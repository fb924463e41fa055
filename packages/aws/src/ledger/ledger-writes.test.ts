import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { decodeOverrides, decodeSlots, effectiveLimits, periodsOf, usdNumber, type OwnerLimits } from './ledger-items.js';
import {
  BUDGET_CONDITION,
  LIMITS_AT_VERSION,
  LIMITS_UNCHANGED,
  RATE_CONDITION,
  RATE_UPDATE,
  RESERVE_UPDATE,
  reservationWrites,
  SLOT_FREE,
  SLOT_RELEASE,
  SLOT_TAKE,
  slotRelease,
  USAGE_UPDATE,
  usageWrites,
  NO_USAGE,
} from './ledger-writes.js';

const NONE: OwnerLimits = { dailyUsd: null, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null };
const NOW = Date.UTC(2026, 11, 31, 23, 59, 30);
const periods = periodsOf(NOW);

describe('the ledger expressions', () => {
  it('are these literal strings', () => {
    expect(BUDGET_CONDITION).toBe('(attribute_not_exists(#charged_usd) AND :zero < :limit) OR #charged_usd < :limit');
    expect(RESERVE_UPDATE).toBe('SET #expires_at = :expires_at ADD #charged_usd :reserve, #reserved_usd :reserve');
    expect(RATE_CONDITION).toBe('(attribute_not_exists(#turns) AND :zero < :limit) OR #turns < :limit');
    expect(RATE_UPDATE).toBe('SET #expires_at = :expires_at ADD #turns :one');
    expect(LIMITS_UNCHANGED).toBe('attribute_not_exists(#limits_version)');
    expect(LIMITS_AT_VERSION).toBe('#limits_version = :limits_version');
    expect(SLOT_FREE).toBe('(attribute_not_exists(#slots) AND :zero < :limit) OR size(#slots) < :limit');
    expect(SLOT_TAKE).toBe('ADD #slots :slot');
    expect(SLOT_RELEASE).toBe('DELETE #slots :slot');
    expect(USAGE_UPDATE).toBe(
      'SET #expires_at = :expires_at ADD #usd :usd, #charged_usd :charged, #reserved_usd :reserved, #input_tokens :input, #output_tokens :output, #cache_read_tokens :cache_read, #cache_write_tokens :cache_write, #turns :turns, #usd_unknown_turns :unknown',
    );
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
  const plan = { tableName: 't', owner: 'alice', periods, limitsVersion: null, reserveUsd: 0.25, slot: null };

  it('without limits, checks only that the overrides are as this process knows them: one ConditionCheck of the gate', () => {
    const { writes, checks } = reservationWrites({ ...plan, limits: NONE });
    expect(checks).toEqual(['gate']);
    expect(writes).toEqual([
      {
        ConditionCheck: {
          TableName: 't',
          Key: { pk: { S: 'OWNER#alice' }, sk: { S: 'USAGE#GATE' } },
          ConditionExpression: LIMITS_UNCHANGED,
          ExpressionAttributeNames: { '#limits_version': 'limits_version' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        },
      },
    ]);
  });

  it('with every limit, takes a slot, counts the minute and reserves on the day and the month, each conditioned on its limit', () => {
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
    expect(day).toMatchObject({ Key: { sk: { S: 'USAGE#D#2026-12-31' } }, UpdateExpression: RESERVE_UPDATE, ConditionExpression: BUDGET_CONDITION });
    expect(day?.ExpressionAttributeValues?.[':limit']).toEqual({ N: '5.0000000000' });
    expect(day?.ExpressionAttributeValues?.[':reserve']).toEqual({ N: '0.2500000000' });
    expect(month).toMatchObject({ Key: { sk: { S: 'USAGE#M#2026-12' } }, ConditionExpression: BUDGET_CONDITION });
    for (const write of [gate, rate, day, month]) expect(write?.ReturnValuesOnConditionCheckFailure).toBe('ALL_OLD');
  });
});

describe('usageWrites and slotRelease', () => {
  it('add the usage to the day and the month, conditioned on the budgets only when asked', () => {
    const delta = { ...NO_USAGE, usd: 0.5, chargedUsd: 0.25, reservedUsd: -0.25, inputTokens: 10, turns: 1 };
    const plain = usageWrites({ tableName: 't', owner: 'alice', periods }, delta, null).writes.map((write) => write.Update!);
    expect(plain.map((write) => write.Key?.sk?.S)).toEqual(['USAGE#D#2026-12-31', 'USAGE#M#2026-12']);
    for (const write of plain) {
      expect(write.ConditionExpression).toBeUndefined();
      expect(write.UpdateExpression).toBe(USAGE_UPDATE);
      expect(write.ExpressionAttributeValues).toMatchObject({
        ':usd': { N: '0.5000000000' },
        ':reserved': { N: '-0.2500000000' },
        ':input': { N: '10' },
        ':turns': { N: '1' },
      });
    }
    const checked = usageWrites({ tableName: 't', owner: 'alice', periods }, delta, { dailyUsd: 1, monthlyUsd: null }).writes.map((write) => write.Update!);
    expect(checked[0]).toMatchObject({
      ConditionExpression: BUDGET_CONDITION,
      ExpressionAttributeValues: { ':limit': { N: '1.0000000000' }, ':zero': { N: '0' } },
    });
    expect(checked[1]?.ConditionExpression).toBeUndefined();
    expect(slotRelease('t', 'alice', '1000#lease').Update).toMatchObject({
      UpdateExpression: SLOT_RELEASE,
      ExpressionAttributeValues: { ':slot': { SS: ['1000#lease'] } },
    });
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
