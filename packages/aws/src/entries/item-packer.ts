/**
 * Packing a log's lines, as they are read (an import, a restore), into entry items: lines in
 * order, each item's text at most {@link ITEM_TEXT_LIMIT} bytes, a longer line an item of its
 * own, offloaded. An append packs its own batch with `packBatch` (pack-batch.ts).
 */
import { ITEM_TEXT_LIMIT, type PlannedItem } from './pack-batch.js';

/** An entry item being filled, and the source line its first entry came from. */
export interface PendingItem extends PlannedItem {
  firstLine: number;
}

/**
 * Packs committed lines into entry items, handing each full one to `write` (awaited: a
 * writer that holds back bounds what is in memory). `flush` ends the item being filled — at
 * the end of the input, or, to keep an item boundary at every batch end, after each batch.
 */
export class ItemPacker {
  readonly #write: (item: PendingItem) => Promise<void>;
  #current: PendingItem | undefined;
  #next = 0;

  /** @param write Called once per item, in order; the packer waits for it. */
  constructor(write: (item: PendingItem) => Promise<void>) {
    this.#write = write;
  }

  /** Adds one line (without its newline); `endsBatch` when it is its batch's last. */
  async add(line: string, lineNumber: number, endsBatch: boolean): Promise<void> {
    const text = `${line}\n`;
    const bytes = Buffer.byteLength(text);
    if (this.#current !== undefined && this.#current.bytes + bytes > ITEM_TEXT_LIMIT) await this.flush();
    if (bytes > ITEM_TEXT_LIMIT) {
      await this.#write({
        index: this.#next++,
        count: 1,
        text,
        bytes,
        batchEnd: endsBatch,
        offload: true,
        firstLine: lineNumber,
      });
      return;
    }
    this.#current ??= {
      index: this.#next,
      count: 0,
      text: '',
      bytes: 0,
      batchEnd: false,
      offload: false,
      firstLine: lineNumber,
    };
    this.#current.text += text;
    this.#current.bytes += bytes;
    this.#current.count++;
    this.#current.batchEnd = endsBatch;
    this.#next++;
  }

  /** Hands the item being filled to `write`, if there is one. */
  async flush(): Promise<void> {
    const item = this.#current;
    this.#current = undefined;
    if (item !== undefined) await this.#write(item);
  }
}
