/**
 * The ledger's writes, as items of the turn's own `TransactWriteItems` (see the store's
 * `setAppendHook`): the reservation and the limits checks that ride on the prompt's append,
 * the usage that rides on each later append, and the release of a turn's slot. Each check
 * is a condition on the ledger item itself, so parallel turns cannot pass it together.
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { namesFor } from '../table/expressions.js';
import { dayKey, expiries, gateKey, minuteKey, monthKey, type OwnerLimits, type Periods, usdNumber } from './ledger-items.js';

/** Added to a day or month total: a budget is judged by `charged_usd` before the turn's own reservation is added. */
/** A limit of 0 refuses even the first turn of a period (`:zero < :limit` for an item not written yet). */
export const BUDGET_CONDITION = '(attribute_not_exists(#charged_usd) AND :zero < :limit) OR #charged_usd < :limit';
export const RESERVE_UPDATE = 'SET #expires_at = :expires_at ADD #charged_usd :reserve, #reserved_usd :reserve';
export const RATE_CONDITION = '(attribute_not_exists(#turns) AND :zero < :limit) OR #turns < :limit';
export const RATE_UPDATE = 'SET #expires_at = :expires_at ADD #turns :one';
export const LIMITS_UNCHANGED = 'attribute_not_exists(#limits_version)';
export const LIMITS_AT_VERSION = '#limits_version = :limits_version';
export const SLOT_FREE = '(attribute_not_exists(#slots) AND :zero < :limit) OR size(#slots) < :limit';
export const SLOT_TAKE = 'ADD #slots :slot';
export const SLOT_RELEASE = 'DELETE #slots :slot';
export const USAGE_UPDATE =
  'SET #expires_at = :expires_at ADD #usd :usd, #charged_usd :charged, #reserved_usd :reserved, #input_tokens :input, #output_tokens :output, #cache_read_tokens :cache_read, #cache_write_tokens :cache_write, #turns :turns, #usd_unknown_turns :unknown';

/** What a write of the prompt's transaction checks; a refusal of it says which limit. */
export type GateCheck = 'gate' | 'rate' | 'day' | 'month';

export interface ReservationPlan {
  tableName: string;
  owner: string;
  periods: Periods;
  limits: OwnerLimits;
  /** The overrides' version this process knows (null: none): the gate refuses the turn if they changed. */
  limitsVersion: number | null;
  /** Dollars reserved for the turn's first provider call. */
  reserveUsd: number;
  /** The turn's concurrency slot (`<expiry ms>#<lease id>`); null when no concurrency limit applies. */
  slot: string | null;
}

/** The prompt's ledger writes, and what each checks (the same order). */
export function reservationWrites(plan: ReservationPlan): { writes: TransactWriteItem[]; checks: GateCheck[] } {
  const { tableName, owner, periods, limits } = plan;
  const expires = expiries(periods);
  const writes: TransactWriteItem[] = [gateWrite(plan)];
  const checks: GateCheck[] = ['gate'];
  if (limits.turnsPerMinute !== null) {
    writes.push(
      update(tableName, minuteKey(owner, periods.minute), RATE_UPDATE, RATE_CONDITION, {
        ':expires_at': { N: String(expires.minute) },
        ':one': { N: '1' },
        ':limit': { N: String(limits.turnsPerMinute) },
      }),
    );
    checks.push('rate');
  }
  const budgets: Array<[GateCheck, number | null, Record<string, AttributeValue>, number]> = [
    ['day', limits.dailyUsd, dayKey(owner, periods.day), expires.day],
    ['month', limits.monthlyUsd, monthKey(owner, periods.month), expires.month],
  ];
  for (const [check, limit, key, expiresAt] of budgets) {
    if (limit === null) continue;
    writes.push(
      update(tableName, key, RESERVE_UPDATE, BUDGET_CONDITION, {
        ':expires_at': { N: String(expiresAt) },
        ':reserve': usdNumber(plan.reserveUsd),
        ':limit': usdNumber(limit),
      }),
    );
    checks.push(check);
  }
  return { writes, checks };
}

/** The gate: the overrides are still the ones this process knows, and — with a concurrency limit — a slot is free. */
function gateWrite(plan: ReservationPlan): TransactWriteItem {
  const version = plan.limitsVersion === null ? LIMITS_UNCHANGED : LIMITS_AT_VERSION;
  const values: Record<string, AttributeValue> = plan.limitsVersion === null ? {} : { ':limits_version': { N: String(plan.limitsVersion) } };
  const key = gateKey(plan.owner);
  if (plan.slot === null || plan.limits.concurrentTurns === null) {
    return {
      ConditionCheck: {
        TableName: plan.tableName,
        Key: key,
        ConditionExpression: version,
        ExpressionAttributeNames: namesFor(version),
        ...(plan.limitsVersion === null ? {} : { ExpressionAttributeValues: values }),
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    };
  }
  const condition = `${version} AND (${SLOT_FREE})`;
  return update(plan.tableName, key, SLOT_TAKE, condition, {
    ...values,
    ':slot': { SS: [plan.slot] },
    ':zero': { N: '0' },
    ':limit': { N: String(plan.limits.concurrentTurns) },
  });
}

/** Usage to add to a day's and a month's totals. */
export interface UsageDelta {
  usd: number;
  chargedUsd: number;
  reservedUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  turns: number;
  usdUnknownTurns: number;
}

export const NO_USAGE: UsageDelta = {
  usd: 0,
  chargedUsd: 0,
  reservedUsd: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  turns: 0,
  usdUnknownTurns: 0,
};

/**
 * Adds `delta` to the day's and the month's totals of the turn's periods. With `budgets`,
 * each is also a check that the budget is not spent yet (a multi-step turn's check before
 * its next provider call); without, it cannot be refused.
 */
export function usageWrites(
  target: { tableName: string; owner: string; periods: Periods },
  delta: UsageDelta,
  budgets: Pick<OwnerLimits, 'dailyUsd' | 'monthlyUsd'> | null,
): { writes: TransactWriteItem[]; checks: GateCheck[] } {
  const { tableName, owner, periods } = target;
  const expires = expiries(periods);
  const values = (expiresAt: number): Record<string, AttributeValue> => ({
    ':expires_at': { N: String(expiresAt) },
    ':usd': usdNumber(delta.usd),
    ':charged': usdNumber(delta.chargedUsd),
    ':reserved': usdNumber(delta.reservedUsd),
    ':input': { N: String(delta.inputTokens) },
    ':output': { N: String(delta.outputTokens) },
    ':cache_read': { N: String(delta.cacheReadTokens) },
    ':cache_write': { N: String(delta.cacheWriteTokens) },
    ':turns': { N: String(delta.turns) },
    ':unknown': { N: String(delta.usdUnknownTurns) },
  });
  const day = budgets?.dailyUsd ?? null;
  const month = budgets?.monthlyUsd ?? null;
  return {
    writes: [
      update(tableName, dayKey(owner, periods.day), USAGE_UPDATE, day === null ? null : BUDGET_CONDITION, {
        ...values(expires.day),
        ...(day === null ? {} : { ':limit': usdNumber(day), ':zero': { N: '0' } }),
      }),
      update(tableName, monthKey(owner, periods.month), USAGE_UPDATE, month === null ? null : BUDGET_CONDITION, {
        ...values(expires.month),
        ...(month === null ? {} : { ':limit': usdNumber(month), ':zero': { N: '0' } }),
      }),
    ],
    checks: ['day', 'month'],
  };
}

/** Frees a turn's concurrency slot. */
export function slotRelease(tableName: string, owner: string, slot: string): TransactWriteItem {
  return update(tableName, gateKey(owner), SLOT_RELEASE, null, { ':slot': { SS: [slot] } });
}

function update(
  tableName: string,
  key: Record<string, AttributeValue>,
  expression: string,
  condition: string | null,
  values: Record<string, AttributeValue>,
): TransactWriteItem {
  return {
    Update: {
      TableName: tableName,
      Key: key,
      UpdateExpression: expression,
      ExpressionAttributeNames: condition === null ? namesFor(expression) : namesFor(expression, condition),
      // `:zero` is the conditions' own constant (a limit of 0 refuses the first write too).
      ExpressionAttributeValues: condition?.includes(':zero') === true ? { ...values, ':zero': { N: '0' } } : values,
      ...(condition === null ? {} : { ConditionExpression: condition, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' }),
    },
  };
}
