/** The usage ledger's items of an owner as DynamoDB holds them, read directly: what an attack must not be able to bend. */
import { type AttributeValue, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { periodsOf } from '@panto/aws';
import type { UsageReportJson } from '../../functions/src/api/response-schemas.js';
import { type ApiHarness, json } from '../api-harness.js';
import type { LocalAws } from '../setup/aws-fixtures.js';

export interface LedgerTotals {
  usd: number;
  chargedUsd: number;
  reservedUsd: number;
  outputTokens: number;
  turns: number;
  /** The holds of turns in flight (`hold#<expiry ms>#<id>` attributes), read here without the ledger's own decoder. */
  holds: Array<{ name: string; expiresAt: number; usd: number }>;
  item: Record<string, AttributeValue> | undefined;
}

/** The owner's day (or month) item of `now`, read consistently. */
export async function ledgerTotals(aws: LocalAws, owner: string, period: 'day' | 'month' = 'day', now = Date.now()): Promise<LedgerTotals> {
  const periods = periodsOf(now);
  const sk = period === 'day' ? `USAGE#D#${periods.day}` : `USAGE#M#${periods.month}`;
  const { Item: item } = await aws.dynamo.send(
    new GetItemCommand({ TableName: aws.tableName, Key: { pk: { S: `OWNER#${owner}` }, sk: { S: sk } }, ConsistentRead: true }),
  );
  const number = (name: string): number => Number(item?.[name]?.N ?? 0);
  return {
    usd: number('usd'),
    chargedUsd: number('charged_usd'),
    reservedUsd: number('reserved_usd'),
    outputTokens: number('output_tokens'),
    turns: number('turns'),
    holds: Object.entries(item ?? {})
      .filter(([name]) => name.startsWith('hold#'))
      .map(([name, value]) => ({ name, expiresAt: Number(name.split('#')[1]), usd: Number(value.N) })),
    item,
  };
}

/** `GET /usage` of `owner`, as answered (200, else the test fails). */
export async function usageReport(app: ApiHarness, owner: string): Promise<UsageReportJson> {
  return json<UsageReportJson>(await app.call(owner, 'GET', '/usage'), 200);
}

/** The prompts session `id` of `owner` stores: only those of turns that ran. */
export async function storedPrompts(app: ApiHarness, owner: string, id: string): Promise<number> {
  const body = await json<{ messages: { role: string }[] }>(await app.call(owner, 'GET', `/sessions/${id}`), 200);
  return body.messages.filter((message) => message.role === 'user').length;
}
