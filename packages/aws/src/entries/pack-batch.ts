/**
 * Packing one append's batch into entry items that fit a single transaction: the item and
 * transaction limits, and what is offloaded to S3 to stay within them. (A log read as it
 * streams in is packed by `ItemPacker`, item-packer.ts.)
 */

/** JSONL bytes kept inline in one item: the 400 KB item limit, less room for keys and attributes. */
export const ITEM_TEXT_LIMIT = 350 * 1024;
/** Inline JSONL bytes in one append transaction: the 4 MB transaction limit, less headroom. */
export const TRANSACTION_TEXT_LIMIT = 3.5 * 1024 * 1024;
/**
 * Entry items in one append: 100 actions per transaction, one of them the META update and up
 * to 4 the writes that ride on the append (the usage ledger's: the gate, the minute, the day,
 * the month; see store/write/transaction-extras.ts).
 */
export const MAX_ITEMS_PER_APPEND = 95;

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
