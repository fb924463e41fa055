/**
 * A log: an append-only list of JSON values kept the way DynamoStore keeps a session — a head
 * item (`H#<sub>`: how many entries, where the live ones start) and entry items (`E#<sub>#<index>`,
 * JSON lines packed several to an item, big texts in S3), written by one conditional
 * transaction per batch. A Claude Agent SDK transcript is a log, and so is an OpenAI Agents
 * session. See docs/aws.md, "The SDK adapters' items".
 */
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Location } from '../../entries/offload.js';
import type { RetryPolicy } from '../../table/transaction-failures.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { logHeadSk } from '../shared/adapter-keys.js';
import type { TextHome } from '../shared/text-items.js';

/** Where one log is. */
export interface LogAddress {
  pk: string;
  /** Its name within the partition: '' for the partition's main log, else e.g. a Claude subpath. */
  sub: string;
  home: TextHome;
  /** The `byOwner` index keys its head carries, when a listing reads it (a Claude session's main transcript). */
  listed?: { gsi1pk: string; gsi1sk: string };
}

/** What every log operation needs. */
export interface LogContext {
  client: DynamoDBClient;
  tableName: string;
  s3: S3Location | undefined;
  clock: () => Date;
  /** Each batch expires this long after it was written (and the head after the newest); never when null. */
  ttlSeconds: number | null;
  retry: RetryPolicy;
  /** Turns a parsed line back into the value that was appended (e.g. bytes); identity when absent. */
  reviver?: (key: string, value: unknown) => unknown;
}

/** The head of a log, as read. */
export interface LogHead {
  /** The index the next entry gets. */
  count: number;
  /** The first live entry's index: entries before it were cleared. */
  liveFrom: number;
  /** Epoch seconds; null without a TTL. */
  expiresAt: number | null;
  lastBatch: string | null;
  updatedAt: string | null;
}

/** What a handle remembers of a log between calls, to send its next append without reading first. */
export interface LogView {
  exists: boolean;
  count: number;
  liveFrom: number;
}

export const UNSEEN: LogView = { exists: false, count: 0, liveFrom: 0 };

export function headKey(address: LogAddress): Record<string, AttributeValue> {
  return { [ADAPTER_ATTR.pk]: { S: address.pk }, [ADAPTER_ATTR.sk]: { S: logHeadSk(address.sub) } };
}

/** A head item decoded; null for none. */
export function decodeHead(item: Record<string, AttributeValue> | undefined): LogHead | null {
  if (item === undefined) return null;
  const expires = item[ADAPTER_ATTR.expiresAt]?.N;
  return {
    count: Number(item[ADAPTER_ATTR.entryCount]?.N ?? 0),
    liveFrom: Number(item[ADAPTER_ATTR.liveFrom]?.N ?? 0),
    expiresAt: expires === undefined ? null : Number(expires),
    lastBatch: item[ADAPTER_ATTR.lastBatch]?.S ?? null,
    updatedAt: item[ADAPTER_ATTR.updatedAt]?.S ?? null,
  };
}

/** Whether a head (or an item) stamped `expiresAt` has expired at `now`; DynamoDB deletes such items only later. */
export function isExpired(expiresAt: number | null, now: Date): boolean {
  return expiresAt !== null && expiresAt * 1000 <= now.getTime();
}

/** The expiry of something written now, in epoch seconds; null without a TTL. */
export function expiryFrom(context: LogContext, now: Date): number | null {
  return context.ttlSeconds === null ? null : Math.floor(now.getTime() / 1000) + context.ttlSeconds;
}

/** Names an item of a log in a `SessionCorruptError`: `dynamodb:<table>/<pk>/<sk>`. */
export function itemSourceOf(context: LogContext, address: LogAddress, sk: string): string {
  return `dynamodb:${context.tableName}/${address.pk}/${sk}`;
}
