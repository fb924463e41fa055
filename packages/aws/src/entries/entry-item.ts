/**
 * The entry item, written and read back: a session's JSONL lines, several to an item in
 * append order, inline or offloaded to S3. The sort key `E#<index>` holds the session-wide
 * index of the item's first entry, so items sort in log order and an item's place is known
 * before it is written.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { SessionCorruptError, type SessionEntry, decodeLine } from '@panto/core/store-kit';
import { ATTR } from '../table/attributes.js';
import { entryIndexOf } from '../table/keys.js';
import type { PlannedItem } from './pack-batch.js';

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
