/**
 * The ledger outside a turn: an owner's totals and overrides read back (`GET /usage`, the
 * operator's `npm run user -- usage`), overrides changed (`npm run user -- limits`), every
 * owner's listed, and the few writes a turn needs only off its common path (a settlement
 * with nothing left to commit and a compaction's reservation go alone through the store's
 * `sendExtras`; lapsed holds and expired slots are swept here).
 */
import { BatchGetItemCommand, GetItemCommand, ScanCommand, UpdateItemCommand, type AttributeValue, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { sdkErrorName } from '../table/sdk-errors.js';
import { ATTR } from '../table/attributes.js';
import { namesFor } from '../table/expressions.js';
import { OWNER_PK_PREFIX } from '../table/keys.js';
import { assertValidOwner } from '../table/validation.js';
import {
  dayKey,
  decodeHolds,
  decodeOverrides,
  decodeSlots,
  gateKey,
  GATE_SK,
  type Hold,
  LEDGER_ATTR,
  LIMIT_ATTR,
  LIMIT_NAMES,
  limitProblem,
  monthKey,
  periodsOf,
  USAGE_SK_PREFIX,
  usdNumber,
  type LimitOverrides,
  type OwnerLimits,
  type Periods,
} from './ledger-items.js';

/** An owner's totals for a day or a month. */
export interface UsageTotals {
  usd: number;
  /** Turns whose model has no known price: their tokens are counted, their dollars are not in `usd`. */
  usdUnknownTurns: number;
  /** Dollars reserved by turns in flight (their holds that have not lapsed), not spent yet. */
  reservedUsd: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  turns: number;
}

export interface OwnerUsage {
  owner: string;
  today: UsageTotals;
  month: UsageTotals;
  overrides: LimitOverrides;
  /** Turns in flight now (unexpired slots), as the gate counts them for the concurrency limit. */
  inFlight: number;
  /** Epoch ms: when today's and this month's totals start again. */
  resets: { day: number; month: number };
}

/** Reads an owner's totals for the UTC day and month of `now`, and their overrides: one consistent BatchGetItem. */
export async function readOwnerUsage(client: DynamoDBClient, tableName: string, owner: string, now: number): Promise<OwnerUsage> {
  assertValidOwner(owner);
  const periods = periodsOf(now);
  const keys = [dayKey(owner, periods.day), monthKey(owner, periods.month), gateKey(owner)];
  const found = new Map<string, Record<string, AttributeValue>>();
  let pending: Record<string, AttributeValue>[] = keys;
  for (let attempt = 0; pending.length > 0 && attempt < 5; attempt++) {
    const answer = await client.send(new BatchGetItemCommand({ RequestItems: { [tableName]: { Keys: pending, ConsistentRead: true } } }));
    for (const item of answer.Responses?.[tableName] ?? []) found.set(item[ATTR.sk]?.S ?? '', item);
    pending = answer.UnprocessedKeys?.[tableName]?.Keys ?? [];
  }
  const sk = (key: Record<string, AttributeValue>): string => key[ATTR.sk]?.S ?? '';
  const gate = found.get(GATE_SK);
  return {
    owner,
    today: decodeTotals(found.get(sk(keys[0]!)), now),
    month: decodeTotals(found.get(sk(keys[1]!)), now),
    overrides: decodeOverrides(gate),
    inFlight: decodeSlots(gate).filter((slot) => slot.expiresAt > now).length,
    resets: { day: periods.dayEnds, month: periods.monthEnds },
  };
}

/** An owner's overrides as the gate now holds them: one consistent GetItem. */
export async function readOwnerOverrides(client: DynamoDBClient, tableName: string, owner: string): Promise<LimitOverrides> {
  assertValidOwner(owner);
  const answer = await client.send(new GetItemCommand({ TableName: tableName, Key: gateKey(owner), ConsistentRead: true }));
  return decodeOverrides(answer.Item);
}

/** A day's or month's totals; what is reserved counts the holds that have not lapsed at `now` (a lapsed one is a crashed turn's, swept when it would refuse a turn). */
export function decodeTotals(item: Record<string, AttributeValue> | undefined, now: number): UsageTotals {
  const number = (name: string): number => Number(item?.[name]?.N ?? 0);
  const reserved = decodeHolds(item)
    .filter((hold) => hold.expiresAt > now)
    .reduce((sum, hold) => sum + hold.usd, 0);
  return {
    usd: number(LEDGER_ATTR.usd),
    usdUnknownTurns: number(LEDGER_ATTR.usdUnknownTurns),
    reservedUsd: Number(reserved.toFixed(10)),
    inputTokens: number(LEDGER_ATTR.inputTokens),
    outputTokens: number(LEDGER_ATTR.outputTokens),
    cacheReadTokens: number(LEDGER_ATTR.cacheReadTokens),
    cacheWriteTokens: number(LEDGER_ATTR.cacheWriteTokens),
    turns: number(LEDGER_ATTR.turns),
  };
}

/** A change to an owner's overrides: a number, `null` for no limit, `'default'` for the server's. */
export type LimitChange = Partial<Record<keyof OwnerLimits, number | null | 'default'>>;

/**
 * Changes an owner's overrides (one UpdateItem on the gate, which bumps their version): every
 * server sees them on the owner's next turn, since each turn's gate check names the version
 * its process knows. Returns the overrides as they now are. A value out of range (see
 * `limitProblem`) is a `RangeError`, before anything is sent.
 */
export async function setOwnerLimits(client: DynamoDBClient, tableName: string, owner: string, change: LimitChange): Promise<LimitOverrides> {
  assertValidOwner(owner);
  const sets: string[] = [];
  const removes: string[] = [];
  const values: Record<string, AttributeValue> = { ':one': { N: '1' } };
  for (const name of LIMIT_NAMES) {
    const value = change[name];
    if (value === undefined) continue;
    const problem = value === null || value === 'default' ? null : limitProblem(name, value);
    if (problem !== null) throw new RangeError(`${name} must be ${problem}, not ${String(value)}`);
    if (value === 'default') removes.push(`#${LIMIT_ATTR[name]}`);
    else {
      sets.push(`#${LIMIT_ATTR[name]} = :${name}`);
      const dollars = name === 'dailyUsd' || name === 'monthlyUsd';
      values[`:${name}`] = value === null ? { NULL: true } : dollars ? usdNumber(value) : { N: String(value) };
    }
  }
  const expression = [
    sets.length > 0 ? `SET ${sets.join(', ')}` : '',
    removes.length > 0 ? `REMOVE ${removes.join(', ')}` : '',
    `ADD #${LEDGER_ATTR.limitsVersion} :one`,
  ]
    .filter((part) => part !== '')
    .join(' ');
  const answer = await client.send(
    new UpdateItemCommand({
      TableName: tableName,
      Key: gateKey(owner),
      UpdateExpression: expression,
      ExpressionAttributeNames: namesFor(expression),
      ExpressionAttributeValues: values,
      ReturnValues: 'ALL_NEW',
    }),
  );
  return decodeOverrides(answer.Attributes);
}

/** Every owner the ledger knows (a totals or gate item): a Scan of the table's `USAGE#` items, for the operator. */
export async function listLedgerOwners(client: DynamoDBClient, tableName: string): Promise<string[]> {
  const owners = new Set<string>();
  const filter = 'begins_with(#pk, :owner_prefix) AND begins_with(#sk, :usage_prefix)';
  let start: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: filter,
        ProjectionExpression: '#pk',
        ExpressionAttributeNames: namesFor(filter),
        ExpressionAttributeValues: { ':owner_prefix': { S: OWNER_PK_PREFIX }, ':usage_prefix': { S: USAGE_SK_PREFIX } },
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) owners.add((item[ATTR.pk]?.S ?? '').slice(OWNER_PK_PREFIX.length));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return [...owners].sort((a, b) => a.localeCompare(b));
}

/**
 * Removes lapsed holds (of holders that crashed) from the day's and the month's items of
 * `periods`, and subtracts what they held from each item's `charged_usd` and `reserved_usd`:
 * one UpdateItem per item, conditioned on each hold still being there at the amount seen, so
 * two sweepers cannot subtract one twice (the one that finds it gone leaves that item as it
 * is). A hold is taken, moved and released on both items together. Only when a turn was refused with them.
 */
export async function sweepHolds(client: DynamoDBClient, tableName: string, owner: string, periods: Periods, holds: readonly Hold[]): Promise<void> {
  if (holds.length === 0) return;
  const names: Record<string, string> = { [`#${LEDGER_ATTR.chargedUsd}`]: LEDGER_ATTR.chargedUsd, [`#${LEDGER_ATTR.reservedUsd}`]: LEDGER_ATTR.reservedUsd };
  const values: Record<string, AttributeValue> = { ':minus': usdNumber(-holds.reduce((sum, hold) => sum + hold.usd, 0)) };
  holds.forEach((hold, i) => {
    names[`#h${i}`] = hold.name;
    values[`:h${i}`] = usdNumber(hold.usd);
  });
  const placeholders = holds.map((_, i) => `#h${i}`);
  for (const key of [dayKey(owner, periods.day), monthKey(owner, periods.month)]) {
    try {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: key,
          UpdateExpression: `REMOVE ${placeholders.join(', ')} ADD #${LEDGER_ATTR.chargedUsd} :minus, #${LEDGER_ATTR.reservedUsd} :minus`,
          ConditionExpression: placeholders.map((name, i) => `${name} = :h${i}`).join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      // Another turn swept them first: nothing left to do on this item.
      if (sdkErrorName(error) !== 'ConditionalCheckFailedException') throw error;
    }
  }
}

/** Removes expired slots from the gate (they are of turns that crashed): one UpdateItem, only when a turn was refused for them. */
export async function sweepSlots(client: DynamoDBClient, tableName: string, owner: string, slots: readonly string[]): Promise<void> {
  if (slots.length === 0) return;
  const expression = `DELETE #${LEDGER_ATTR.slots} :slots`;
  await client.send(
    new UpdateItemCommand({
      TableName: tableName,
      Key: gateKey(owner),
      UpdateExpression: expression,
      ExpressionAttributeNames: namesFor(expression),
      ExpressionAttributeValues: { ':slots': { SS: [...slots] } },
    }),
  );
}
