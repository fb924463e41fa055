/**
 * The adapters' items hold text the way DynamoStore's entry items do — JSON lines, several to
 * an item (`packBatch`), each over 350 KB (or past what one transaction holds) offloaded to S3
 * under a content hash (`putOffload`) and read back with its hash checked (`getOffload`) — so
 * nothing is ever cut, and the item attributes are DynamoStore's (`entryItem`).
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SessionCorruptError } from '@panto/core/store-kit';
import { decodeStoredItem, entryItem, type OffloadRef } from '../../entries/entry-item.js';
import { getOffload, putOffload, type S3Location } from '../../entries/offload.js';
import { ITEM_TEXT_LIMIT, packBatch, TRANSACTION_TEXT_LIMIT, type PlannedItem } from '../../entries/pack-batch.js';
import { OffloadRequiredError } from '../../errors.js';
import { entrySk } from '../../table/keys.js';
import { ADAPTER_ATTR } from './adapter-attributes.js';

/** An item's text as planned (indexes from 0), and where it went when it was offloaded. */
export interface PlacedItem {
  planned: PlannedItem;
  ref: OffloadRef | null;
}

/** Where the text of one log, thread or session goes in S3, and its name in errors. */
export interface TextHome {
  s3: S3Location | undefined;
  /** The folder under `<prefix>offload/` (e.g. `claude/<project>/<session>/main`). */
  objectId: string;
  /** Names it in errors (e.g. `claude:<project>/<session>`). */
  name: string;
}

/**
 * Packs lines (without newlines) into items and writes the texts that must be offloaded,
 * before any transaction names them. Their keys are tagged with `tag` (unique to the write),
 * so an object is only ever the one item's that was written with it, and removing it can
 * never remove another's. `OffloadRequiredError` when a text must go to S3 and there is none.
 */
export function placeLines(home: TextHome, lines: readonly string[], tag: string): Promise<PlacedItem[]> {
  return offloadPlanned(home, packBatch(lines, 0), tag);
}

/**
 * Places each line in an item of its own (a value that has a key of its own: a LangGraph
 * checkpoint or channel value), by the rules `packBatch` packs a batch by: a text over 350 KB
 * offloaded, then the largest inline ones while the transaction would hold more than 3.5 MB.
 */
export async function placeEach(home: TextHome, lines: readonly string[], tag: string): Promise<PlacedItem[]> {
  const planned: PlannedItem[] = lines.map((line, index) => {
    const text = `${line}\n`;
    const bytes = Buffer.byteLength(text);
    return { index, count: 1, text, bytes, batchEnd: true, offload: bytes > ITEM_TEXT_LIMIT };
  });
  let inline = planned.reduce((sum, item) => sum + (item.offload ? 0 : item.bytes), 0);
  const bySize = planned.filter((item) => !item.offload).sort((a, b) => b.bytes - a.bytes);
  for (const item of bySize) {
    if (inline <= TRANSACTION_TEXT_LIMIT) break;
    item.offload = true;
    inline -= item.bytes;
  }
  return offloadPlanned(home, planned, tag);
}

/** Writes the texts of the planned items that are offloaded; `OffloadRequiredError` when there is no S3. */
async function offloadPlanned(home: TextHome, planned: readonly PlannedItem[], tag: string): Promise<PlacedItem[]> {
  const offloaded = planned.filter((item) => item.offload);
  if (offloaded.length > 0 && home.s3 === undefined) {
    const bytes = offloaded.reduce((sum, item) => sum + item.bytes, 0);
    throw new OffloadRequiredError(
      home.name,
      bytes,
      `${bytes} bytes do not fit DynamoDB items and one transaction (${TRANSACTION_TEXT_LIMIT} bytes inline); nothing was written`,
    );
  }
  const s3 = home.s3;
  return Promise.all(
    planned.map(async (item) => ({ planned: item, ref: item.offload && s3 !== undefined ? await putOffload(s3, home.objectId, item.text, tag) : null })),
  );
}

/** An item's attributes: DynamoStore's entry item under the given keys, with an expiry when there is one. */
export function textItem(keys: { pk: string; sk: string }, placed: PlacedItem, expiresAt: number | null): Record<string, AttributeValue> {
  const item = entryItem(keys, placed.planned, placed.ref);
  if (expiresAt !== null) item[ADAPTER_ATTR.expiresAt] = { N: String(expiresAt) };
  return item;
}

/** What an item holds, read back. */
export interface ItemText {
  /** The lines, each ending in `\n`. */
  text: string;
  count: number;
  batchEnd: boolean;
  ref: OffloadRef | null;
}

/**
 * An item's text, fetched from S3 when offloaded (its hash checked). `SessionCorruptError`
 * naming `source` when the item is malformed or the object changed; `OffloadRequiredError`
 * when it is offloaded and no S3 client is configured.
 */
export async function readItemText(item: Record<string, AttributeValue>, s3: S3Client | undefined, source: string, name: string): Promise<ItemText> {
  // The item's shape is DynamoStore's entry item's; only its sort key is the adapter's own.
  const stored = decodeStoredItem({ ...item, [ADAPTER_ATTR.sk]: { S: entrySk(0) } }, source);
  if (stored.ref === null) return { text: stored.lines ?? '', count: stored.count, batchEnd: stored.batchEnd, ref: null };
  if (s3 === undefined) throw new OffloadRequiredError(name, stored.ref.bytes, 'an item is offloaded to S3');
  return { text: await getOffload(s3, stored.ref, source), count: stored.count, batchEnd: stored.batchEnd, ref: stored.ref };
}

/** Parses an item's lines as JSON; `SessionCorruptError` for a line that is not, or a count that does not match. */
export function parseLines(text: string, expectedCount: number, source: string, reviver?: (key: string, value: unknown) => unknown): unknown[] {
  const values: unknown[] = [];
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    if (end === -1) throw new SessionCorruptError(source, values.length + 1, 'line is not terminated by a newline');
    try {
      values.push(JSON.parse(text.slice(start, end), reviver));
    } catch (error) {
      throw new SessionCorruptError(source, values.length + 1, 'line is not JSON', { cause: error });
    }
    start = end + 1;
  }
  if (values.length !== expectedCount)
    throw new SessionCorruptError(source, Math.max(values.length, 1), `item holds ${values.length} lines, its count says ${expectedCount}`);
  return values;
}
