/**
 * The ledger's writes, as items of the turn's own `TransactWriteItems` (see the store's
 * `setAppendHook`): the reservation and the limits checks that ride on the prompt's append,
 * the usage that rides on each later append, and the release of a turn's slot. Each check
 * is a condition on the ledger item itself, so parallel turns cannot pass it together.
 *
 * A reservation is a hold on the day's and the month's item (`hold#<expiry ms>#<id>`, see
 * ledger-items.ts), always taken, whether a budget applies or not: a budget set while turns
 * run counts what they hold, and what a settlement gives back is exactly what was held. A
 * write that moves or removes a hold is conditioned on the hold being there, so a hold that
 * lapsed and was swept (its dollars subtracted) is never subtracted twice.
 */
import type { AttributeValue, TransactWriteItem } from '@aws-sdk/client-dynamodb';
import { namesFor } from '../table/expressions.js';
import { dayKey, expiries, gateKey, LEDGER_ATTR, minuteKey, monthKey, type OwnerLimits, type Periods, usdNumber } from './ledger-items.js';

/** A budget is judged by `charged_usd` before the write's own addition; a limit of 0 refuses even the first turn of a period (`:zero < :limit` for an item not written yet). */
export const BUDGET_CONDITION = '(attribute_not_exists(#charged_usd) AND :zero < :limit) OR #charged_usd < :limit';
/** A write that moves or releases a hold: only while the hold is there (not swept as lapsed). */
export const HOLD_HELD = 'attribute_exists(#hold)';
export const RATE_CONDITION = '(attribute_not_exists(#turns) AND :zero < :limit) OR #turns < :limit';
export const RATE_UPDATE = 'SET #expires_at = :expires_at ADD #turns :one';
export const LIMITS_UNCHANGED = 'attribute_not_exists(#limits_version)';
export const LIMITS_AT_VERSION = '#limits_version = :limits_version';
export const SLOT_FREE = '(attribute_not_exists(#slots) AND :zero < :limit) OR size(#slots) < :limit';
export const SLOT_TAKE = 'ADD #slots :slot';
export const SLOT_RELEASE = 'DELETE #slots :slot';
/** Each total a write may add to: its `UsageDelta` field (the attribute is `LEDGER_ATTR`'s of the same name), its value's placeholder, and whether it is dollars. */
const TOTALS: ReadonlyArray<readonly [keyof UsageDelta, string, boolean]> = [
  ['usd', 'usd', true],
  ['chargedUsd', 'charged', true],
  ['reservedUsd', 'reserved', true],
  ['inputTokens', 'input', false],
  ['outputTokens', 'output', false],
  ['cacheReadTokens', 'cache_read', false],
  ['cacheWriteTokens', 'cache_write', false],
  ['turns', 'turns', false],
  ['usdUnknownTurns', 'unknown', false],
];
/** Usage added to a day's or month's totals, the holds left as they are. */
export const USAGE_UPDATE = 'SET #expires_at = :expires_at';
/** The same, and the holder's hold set to `:hold` dollars (taken, or moved to the next call's reservation). */
export const USAGE_HOLD_UPDATE = 'SET #expires_at = :expires_at, #hold = :hold';
/** The same, and the holder's hold removed (its settlement). */
export const USAGE_RELEASE_UPDATE = 'SET #expires_at = :expires_at REMOVE #hold';

/**
 * The `ADD` clause of a delta and its values: only the totals it changes. A total never
 * written reads as 0 (owner-usage.ts), so adding 0 bought nothing but bytes — a hold's
 * write changes 2 of the 9, a plain settlement 5 or 6.
 */
function totalsAdd(delta: UsageDelta): { clause: string; values: Record<string, AttributeValue> } {
  const terms: string[] = [];
  const values: Record<string, AttributeValue> = {};
  for (const [field, placeholder, dollars] of TOTALS) {
    const amount = delta[field];
    if (amount === 0) continue;
    terms.push(`#${LEDGER_ATTR[field]} :${placeholder}`);
    values[`:${placeholder}`] = dollars ? usdNumber(amount) : { N: String(amount) };
  }
  return { clause: terms.length === 0 ? '' : ` ADD ${terms.join(', ')}`, values };
}

/** What a write of the prompt's transaction checks; a refusal of it says which limit. */
export type GateCheck = 'gate' | 'rate' | 'day' | 'month';

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
 * What a totals write does to its holder's hold: takes it (the reservation), moves it to a
 * new amount (a top-up before the next call) or releases it (the settlement) — the last two
 * only while it is there — or, null, leaves the holds alone.
 */
export type HoldChange = { type: 'take' | 'move'; name: string; usd: number } | { type: 'release'; name: string } | null;

/** One write to a day's or a month's totals. */
export interface TotalsWrite {
  period: 'day' | 'month';
  delta: UsageDelta;
  hold: HoldChange;
  /** Refused unless `charged_usd` (before this write) is below this; null: unconditional on the budget. */
  limit: number | null;
}

export interface LedgerTarget {
  tableName: string;
  owner: string;
  periods: Periods;
}

/** A write to the day's or the month's totals of `target`'s periods. */
export function totalsWrite(target: LedgerTarget, write: TotalsWrite): TransactWriteItem {
  const { tableName, owner, periods } = target;
  const expires = expiries(periods);
  const day = write.period === 'day';
  const { delta, hold } = write;
  const expression = hold === null ? USAGE_UPDATE : hold.type === 'release' ? USAGE_RELEASE_UPDATE : USAGE_HOLD_UPDATE;
  const conditions = [
    ...(hold !== null && hold.type !== 'take' ? [HOLD_HELD] : []),
    ...(write.limit === null ? [] : [hold !== null && hold.type !== 'take' ? `(${BUDGET_CONDITION})` : BUDGET_CONDITION]),
  ];
  const add = totalsAdd(delta);
  const values: Record<string, AttributeValue> = {
    ':expires_at': { N: String(day ? expires.day : expires.month) },
    ...add.values,
    ...(hold !== null && hold.type !== 'release' ? { ':hold': usdNumber(hold.usd) } : {}),
    ...(write.limit === null ? {} : { ':limit': usdNumber(write.limit) }),
  };
  const key = day ? dayKey(owner, periods.day) : monthKey(owner, periods.month);
  const item = update(tableName, key, expression + add.clause, conditions.join(' AND ') || null, values);
  if (hold !== null) item.Update!.ExpressionAttributeNames!['#hold'] = hold.name;
  return item;
}

export interface ReservationPlan extends LedgerTarget {
  limits: OwnerLimits;
  /** The overrides' version this process knows (null: none): the gate refuses the turn if they changed. */
  limitsVersion: number | null;
  /** The hold to take on the day and the month, worth what the first provider call can cost. */
  hold: { name: string; usd: number };
  /** Whether it is a turn (a compaction is not): it counts against turns per minute and takes `slot`. */
  turn: boolean;
  /** The turn's concurrency slot (`<expiry ms>#<lease id>`); null when no concurrency limit applies. */
  slot: string | null;
}

/** The reservation's writes, and what each checks (the same order): the gate, the minute, the day's and the month's holds. */
export function reservationWrites(plan: ReservationPlan): { writes: TransactWriteItem[]; checks: GateCheck[] } {
  const { tableName, owner, periods, limits } = plan;
  const writes: TransactWriteItem[] = [gateWrite(plan)];
  const checks: GateCheck[] = ['gate'];
  if (plan.turn && limits.turnsPerMinute !== null) {
    writes.push(
      update(tableName, minuteKey(owner, periods.minute), RATE_UPDATE, RATE_CONDITION, {
        ':expires_at': { N: String(expiries(periods).minute) },
        ':one': { N: '1' },
        ':limit': { N: String(limits.turnsPerMinute) },
      }),
    );
    checks.push('rate');
  }
  const delta = { ...NO_USAGE, chargedUsd: plan.hold.usd, reservedUsd: plan.hold.usd };
  const hold = { type: 'take', ...plan.hold } as const;
  writes.push(totalsWrite(plan, { period: 'day', delta, hold, limit: limits.dailyUsd }));
  writes.push(totalsWrite(plan, { period: 'month', delta, hold, limit: limits.monthlyUsd }));
  checks.push('day', 'month');
  return { writes, checks };
}

/** The gate: the overrides are still the ones this process knows, and — with a concurrency limit — a slot is free. */
function gateWrite(plan: ReservationPlan): TransactWriteItem {
  const version = plan.limitsVersion === null ? LIMITS_UNCHANGED : LIMITS_AT_VERSION;
  const values: Record<string, AttributeValue> = plan.limitsVersion === null ? {} : { ':limits_version': { N: String(plan.limitsVersion) } };
  const key = gateKey(plan.owner);
  if (!plan.turn || plan.slot === null || plan.limits.concurrentTurns === null) {
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
    ':limit': { N: String(plan.limits.concurrentTurns) },
  });
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
