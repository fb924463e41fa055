/**
 * Entry items: a session's JSONL lines, packed several to an item in append order. The
 * sort key `E#<index>` holds the session-wide index of the item's first entry, so items
 * sort in log order and an item's place is known before it is written.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError, type SessionEntry } from '@panto/core';
import { decodeLine } from '@panto/core/store-kit';
import { ATTR, entryIndexOf } from '../table/keys.js';

/** JSONL bytes kept inline in one item: the 400 KB item limit, less room for keys and attributes. */
export const ITEM_TEXT_LIMIT = 350 * 1024;
/** Inline JSONL bytes in one append transaction: the 4 MB transaction limit, less headroom. */
export const TRANSACTION_TEXT_LIMIT = 3.5 * 1024 * 1024;
/** Entry items in one append: 100 actions per transaction, one of them the META update. */
export const MAX_ITEMS_PER_APPEND = 99;

export interface PackLimits {
  itemText: number;
  transactionText: number;
  items: number;
}

export const DEFAULT_PACK_LIMITS: PackLimits = {
  itemText: ITEM_TEXT_LIMIT,
  transactionText: TRANSACTION_TEXT_LIMIT,
  items: MAX_ITEMS_PER_APPEND,
};

/** An entry item about to be written. */
export interface PlannedItem {
  /** Session-wide index of its first entry. */
  index: number;
  count: number;
  /** The lines, each ending in `\n`. */
  text: string;
  /** UTF-8 bytes of `text`. */
  bytes: number;
  /** Whether its last line ends the batch. */
  batchEnd: boolean;
  /** Whether `text` goes to S3, the item keeping a pointer. */
  offload: boolean;
}

/**
 * Packs one batch's lines (without newlines) into entry items for a single transaction:
 * lines in order, each item's text at most `itemText` bytes; a line over that is an item
 * of its own, offloaded. Then, while the inline text exceeds `transactionText`, the
 * largest inline item is offloaded; and past `items` items, the tail is merged into one
 * offloaded item. Nothing is ever cut: every line lands whole in exactly one item.
 */
export function packBatch(lines: readonly string[], firstIndex: number, limits: PackLimits = DEFAULT_PACK_LIMITS): PlannedItem[] {
  const items: PlannedItem[] = [];
  let current: PlannedItem | undefined;
  for (const line of lines) {
    const text = `${line}\n`;
    const bytes = Buffer.byteLength(text);
    if (current !== undefined && current.bytes + bytes > limits.itemText) {
      items.push(current);
      current = undefined;
    }
    current ??= { index: firstIndex + countOf(items), count: 0, text: '', bytes: 0, batchEnd: false, offload: false };
    current.text += text;
    current.bytes += bytes;
    current.count++;
    if (current.bytes > limits.itemText) {
      current.offload = true;
      items.push(current);
      current = undefined;
    }
  }
  if (current !== undefined) items.push(current);
  if (items.length === 0) return items;

  let inline = 0;
  for (const item of items) if (!item.offload) inline += item.bytes;
  while (inline > limits.transactionText) {
    let largest: PlannedItem | undefined;
    for (const item of items) if (!item.offload && (largest === undefined || item.bytes > largest.bytes)) largest = item;
    largest!.offload = true;
    inline -= largest!.bytes;
  }

  if (items.length > limits.items) {
    const tail = items.splice(limits.items - 1);
    items.push({
      index: tail[0]!.index,
      count: countOf(tail),
      text: tail.map((item) => item.text).join(''),
      bytes: tail.reduce((sum, item) => sum + item.bytes, 0),
      batchEnd: false,
      offload: true,
    });
  }
  items[items.length - 1]!.batchEnd = true;
  return items;
}

function countOf(items: readonly PlannedItem[]): number {
  let count = 0;
  for (const item of items) count += item.count;
  return count;
}

/** Where an offloaded item's text is. */
export interface OffloadRef {
  bucket: string;
  key: string;
  bytes: number;
  sha256: string;
}

/** The attributes of an entry item (keys included). */
export function entryItem(
  keys: { pk: string; sk: string },
  item: Pick<PlannedItem, 'count' | 'batchEnd' | 'text'>,
  ref: OffloadRef | null,
): Record<string, AttributeValue> {
  const attributes: Record<string, AttributeValue> = {
    [ATTR.pk]: { S: keys.pk },
    [ATTR.sk]: { S: keys.sk },
    [ATTR.count]: { N: String(item.count) },
    [ATTR.batchEnd]: { BOOL: item.batchEnd },
  };
  if (ref === null) {
    attributes[ATTR.lines] = { S: item.text };
  } else {
    attributes[ATTR.linesBucket] = { S: ref.bucket };
    attributes[ATTR.linesRef] = { S: ref.key };
    attributes[ATTR.linesBytes] = { N: String(ref.bytes) };
    attributes[ATTR.linesSha256] = { S: ref.sha256 };
  }
  return attributes;
}

/** An entry item as read back. */
export interface StoredItem {
  sk: string;
  index: number;
  count: number;
  batchEnd: boolean;
  /** The inline text, or null when offloaded. */
  lines: string | null;
  ref: OffloadRef | null;
}

/** Decodes an entry item; `source` names it in a `SessionCorruptError`. */
export function decodeStoredItem(item: Record<string, AttributeValue>, source: string): StoredItem {
  const fail = (reason: string): never => {
    throw new SessionCorruptError(source, 1, `entry item: ${reason}`);
  };
  const sk = item[ATTR.sk]?.S ?? fail('no sort key');
  const index = entryIndexOf(sk) ?? fail(`sort key ${sk} is not an entry key`);
  const count = Number(item[ATTR.count]?.N ?? fail(`no ${ATTR.count}`));
  if (!Number.isInteger(count) || count < 1) fail(`${ATTR.count} must be a positive integer`);
  const lines = item[ATTR.lines]?.S;
  const key = item[ATTR.linesRef]?.S;
  if ((lines === undefined) === (key === undefined)) fail(`needs exactly one of ${ATTR.lines} and ${ATTR.linesRef}`);
  let ref: OffloadRef | null = null;
  if (key !== undefined) {
    const bucket = item[ATTR.linesBucket]?.S ?? fail(`no ${ATTR.linesBucket}`);
    const bytes = Number(item[ATTR.linesBytes]?.N ?? fail(`no ${ATTR.linesBytes}`));
    const sha256 = item[ATTR.linesSha256]?.S ?? fail(`no ${ATTR.linesSha256}`);
    ref = { bucket, key, bytes, sha256 };
  }
  return { sk, index, count, batchEnd: item[ATTR.batchEnd]?.BOOL === true, lines: lines ?? null, ref };
}

/**
 * Decodes an item's text line by line with the session codec, appending to `into`. A
 * corrupt line is a `SessionCorruptError` naming `source` and the line within the item.
 */
export function decodeItemText(text: string, expectedCount: number, source: string, into: SessionEntry[]): void {
  let start = 0;
  let line = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    line++;
    if (end === -1) throw new SessionCorruptError(source, line, 'line is not terminated by a newline');
    into.push(decodeLine(text.slice(start, end), source, line));
    start = end + 1;
  }
  if (line !== expectedCount) {
    throw new SessionCorruptError(source, Math.max(line, 1), `entry item holds ${line} lines, its count says ${expectedCount}`);
  }
}
