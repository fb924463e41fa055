/**
 * Reading a log: its head and its entry items (consistent reads, paginated), kept to the live
 * range the head names — `[live_from, entry_count)` — and only when the items there are all
 * present: a Query is no snapshot of concurrent transactions, so a read that caught a write
 * half-way reads again. With a TTL, entries whose time has passed are gone from that moment,
 * and so is everything older.
 */
import { GetItemCommand, QueryCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError } from '@panto/core/store-kit';
import { namesFor } from '../../table/expressions.js';
import { ADAPTER_ATTR } from '../shared/adapter-attributes.js';
import { LOG_ENTRIES_BETWEEN } from '../shared/adapter-expressions.js';
import { logEntryIndexOf, logEntrySk, logHeadSk } from '../shared/adapter-keys.js';
import { parseLines, readItemText } from '../shared/text-items.js';
import { decodeHead, headKey, isExpired, itemSourceOf, type LogAddress, type LogContext, type LogHead } from './log-types.js';

/** Reads of a log that caught a concurrent write half-way, before it is called corrupt. */
const READ_ATTEMPTS = 4;
/** The highest index a sort key can hold (12 digits). */
const LAST_INDEX = 999_999_999_999;

/** An entry item of a log, as read. */
export interface LogItem {
  sk: string;
  index: number;
  count: number;
  expiresAt: number | null;
  item: Record<string, AttributeValue>;
}

/** A live log: its head and its live entries, in order. Null when there is none (never written, deleted, or expired). */
export interface LogRead {
  head: LogHead;
  entries: unknown[];
}

/**
 * Every live entry of the log (`tail`: only the newest `tail`), or null when the log does
 * not exist or has expired. `fromHint`: where the handle last knew the live entries to
 * start (items before it are not asked for). `SessionCorruptError` when items are missing
 * (or malformed) read after read.
 */
export async function readLog(context: LogContext, address: LogAddress, fromHint = 0, tail?: number): Promise<LogRead | null> {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
    // The first read asks for the head and the items at once; a read again asks for the head first.
    const [head, prefetched] =
      attempt === 0 && tail === undefined
        ? await Promise.all([readHead(context, address), queryItems(context, address, fromHint, LAST_INDEX, false)])
        : [await readHead(context, address), null];
    const now = context.clock();
    if (head === null || isExpired(head.expiresAt, now)) return null;
    if (head.count === head.liveFrom) return { head, entries: [] };
    const items =
      prefetched !== null && fromHint <= head.liveFrom
        ? prefetched
        : await queryItems(context, address, head.liveFrom, head.count - 1, tail !== undefined, tail);
    // A log some writer gave a TTL (its head carries an expiry) may have lost expired items already.
    const live = liveItems(head, items, now, context.ttlSeconds !== null || head.expiresAt !== null, tail);
    if (live === null) continue;
    return { head, entries: await decodeItems(context, address, live, tail) };
  }
  throw new SessionCorruptError(itemSourceOf(context, address, logHeadSk(address.sub)), null, 'entry items are missing from the range the head names');
}

export async function readHead(context: LogContext, address: LogAddress): Promise<LogHead | null> {
  const { Item } = await context.client.send(new GetItemCommand({ TableName: context.tableName, Key: headKey(address), ConsistentRead: true }));
  return decodeHead(Item);
}

/**
 * The log's entry items with indexes in `[from, to]`, consistent, in index order (newest
 * first when `descending`); with `enough`, descending pages stop once they hold that many entries.
 */
export async function queryItems(context: LogContext, address: LogAddress, from: number, to: number, descending: boolean, enough?: number): Promise<LogItem[]> {
  const items: LogItem[] = [];
  let entries = 0;
  let start: Record<string, AttributeValue> | undefined;
  if (to < from) return items;
  do {
    const page = await context.client.send(
      new QueryCommand({
        TableName: context.tableName,
        KeyConditionExpression: LOG_ENTRIES_BETWEEN,
        ExpressionAttributeNames: namesFor(LOG_ENTRIES_BETWEEN),
        ExpressionAttributeValues: {
          ':pk': { S: address.pk },
          ':from_sk': { S: logEntrySk(address.sub, from) },
          ':to_sk': { S: logEntrySk(address.sub, to) },
        },
        ConsistentRead: true,
        ScanIndexForward: !descending,
        ...(enough === undefined ? {} : { Limit: Math.max(enough, 1) }),
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    for (const item of page.Items ?? []) {
      const decoded = logItemOf(address, item);
      items.push(decoded);
      entries += decoded.count;
    }
    start = page.LastEvaluatedKey;
  } while (start !== undefined && (enough === undefined || entries < enough));
  return descending ? items.reverse() : items;
}

function logItemOf(address: LogAddress, item: Record<string, AttributeValue>): LogItem {
  const sk = item[ADAPTER_ATTR.sk]?.S ?? '';
  const expires = item[ADAPTER_ATTR.expiresAt]?.N;
  return {
    sk,
    index: logEntryIndexOf(address.sub, sk) ?? -1,
    count: Number(item[ADAPTER_ATTR.count]?.N ?? 0),
    expiresAt: expires === undefined ? null : Number(expires),
    item,
  };
}

/**
 * The items that hold the live range, in order — from `live_from` (or, reading a tail, from
 * wherever the read began) to `entry_count`, with no gap — or null when they are not all there
 * (a write landed between the reads). Entries that expired, and all before them, are left
 * out; with a TTL, items DynamoDB already deleted may be missing at the start.
 */
export function liveItems(head: LogHead, items: readonly LogItem[], now: Date, ttl: boolean, tail?: number): LogItem[] | null {
  let window = items.filter((item) => item.index >= head.liveFrom && item.index < head.count);
  const lastExpired = window.findLastIndex((item) => isExpired(item.expiresAt, now));
  if (lastExpired >= 0) window = window.slice(lastExpired + 1);
  const first = window[0];
  if (first === undefined) return lastExpired >= 0 || ttl ? [] : null;
  const readFromStart = tail === undefined && lastExpired < 0 && !ttl;
  let cursor = readFromStart ? head.liveFrom : first.index;
  for (const item of window) {
    if (item.index !== cursor) return null;
    cursor += item.count;
  }
  return cursor === head.count ? window : null;
}

async function decodeItems(context: LogContext, address: LogAddress, items: readonly LogItem[], tail?: number): Promise<unknown[]> {
  const texts = await Promise.all(items.map((item) => readItemText(item.item, context.s3?.client, itemSourceOf(context, address, item.sk), address.home.name)));
  const entries = texts.flatMap((text, i) => parseLines(text.text, text.count, itemSourceOf(context, address, items[i]!.sk), context.reviver));
  return tail === undefined ? entries : entries.slice(Math.max(entries.length - tail, 0));
}
