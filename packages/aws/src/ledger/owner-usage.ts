/**
 * The ledger outside a turn: an owner's totals and overrides read back (`GET /usage`, the
 * operator's `npm run user -- usage`), overrides changed (`npm run user -- limits`), every
 * owner's listed, and the few writes a turn needs only off its common path (a settlement
 * with nothing left to commit, expired slots swept).
 */
import { randomUUID } from 'node:crypto';
import {
  BatchGetItemCommand,
  ScanCommand,
  TransactWriteItemsCommand,
  UpdateItemCommand,
  type AttributeValue,
  type DynamoDBClient,
  type TransactWriteItem,
} from '@aws-sdk/client-dynamodb';
import { ATTR } from '../table/attributes.js';
import { namesFor } from '../table/expressions.js';
import { OWNER_PK_PREFIX } from '../table/keys.js';
import { assertValidOwner } from '../table/validation.js';
import {
  dayKey,
  decodeOverrides,
  decodeSlots,
  gateKey,
  GATE_SK,
  LEDGER_ATTR,
  LIMIT_ATTR,
  LIMIT_NAMES,
  monthKey,
  periodsOf,
  USAGE_SK_PREFIX,
  type LimitOverrides,
  type OwnerLimits,
} from './ledger-items.js';

/** An owner's totals for a day or a month. */
export interface UsageTotals {
  usd: number;
  /** Turns whose model has no known price: their tokens are counted, their dollars are not in `usd`. */
  usdUnknownTurns: number;
  /** Dollars reserved by turns in flight, not spent yet. */
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
    today: decodeTotals(found.get(sk(keys[0]!))),
    month: decodeTotals(found.get(sk(keys[1]!))),
    overrides: decodeOverrides(gate),
    inFlight: decodeSlots(gate).filter((slot) => slot.expiresAt > now).length,
    resets: { day: periods.dayEnds, month: periods.monthEnds },
  };
}

export function decodeTotals(item: Record<string, AttributeValue> | undefined): UsageTotals {
  const number = (name: string): number => Number(item?.[name]?.N ?? 0);
  return {
    usd: number(LEDGER_ATTR.usd),
    usdUnknownTurns: number(LEDGER_ATTR.usdUnknownTurns),
    reservedUsd: number(LEDGER_ATTR.reservedUsd),
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
 * its process knows. Returns the overrides as they now are.
 */
export async function setOwnerLimits(client: DynamoDBClient, tableName: string, owner: string, change: LimitChange): Promise<LimitOverrides> {
  assertValidOwner(owner);
  const sets: string[] = [];
  const removes: string[] = [];
  const values: Record<string, AttributeValue> = { ':one': { N: '1' } };
  for (const name of LIMIT_NAMES) {
    const value = change[name];
    if (value === undefined) continue;
    if (value !== null && value !== 'default' && !(Number.isFinite(value) && value >= 0)) throw new RangeError(`${name} must be a number of at least 0`);
    if (value === 'default') removes.push(`#${LIMIT_ATTR[name]}`);
    else {
      sets.push(`#${LIMIT_ATTR[name]} = :${name}`);
      values[`:${name}`] = value === null ? { NULL: true } : { N: String(value) };
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
 * Sends ledger writes as a transaction of their own: a settlement that no append carried.
 * Under one `ClientRequestToken`, so that the SDK's retry of an attempt whose answer was
 * lost does not settle twice.
 */
export async function sendLedgerWrites(client: DynamoDBClient, writes: TransactWriteItem[]): Promise<void> {
  if (writes.length === 0) return;
  await client.send(new TransactWriteItemsCommand({ TransactItems: writes, ClientRequestToken: randomUUID() }));
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
