/**
 * The entry items a read of a session brings, decoded in log order as their texts arrive:
 * item by item up to the first gap (an item not there, or an offloaded text that is gone),
 * remembering where each append batch ended — a read keeps only what whole batches hold.
 */
import { SessionCorruptError, type SessionEntry } from '@panto/core/store-kit';
import { decodeItemText, type StoredItem } from '../../entries/entry-item.js';
import type { MetaRecord } from '../../meta/meta-item.js';

/** What the items came to: the committed entries, their bytes, and where the read fell short, if it did. */
export interface SequenceEnd {
  /** The committed entries from the first index on, in log order. */
  entries: SessionEntry[];
  /** JSONL bytes of those entries, as stored. */
  bytes: number;
  /** Index of the first entry item that was missing, when the read stopped short of META's count. */
  missingAt: number | null;
}

export class ItemSequence {
  readonly #fromIndex: number;
  /** Items of every page, in order, each with its text or the offload fetch that brings it (null: the text is gone). */
  readonly #items: Array<{ item: StoredItem; source: string; text: string | Promise<string | null> }> = [];
  #decoded = 0;
  readonly #entries: SessionEntry[] = [];
  #committed = 0;
  #bytes = 0;
  /** Bytes read at each batch end, by entry count: META's count always falls on one. */
  readonly #bytesAt = new Map<number, number>([[0, 0]]);
  #missingAt: number | null = null;

  /** @param fromIndex The index of the first entry the read asked for. */
  constructor(fromIndex: number) {
    this.#fromIndex = fromIndex;
  }

  /** Queues an item, in log order, with its text or the fetch that brings it. */
  add(item: StoredItem, source: string, text: string | Promise<string | null>): void {
    this.#items.push({ item, source, text });
  }

  /** Decodes the items queued so far, in order, up to the first gap. */
  async decodeReady(): Promise<void> {
    for (; this.#decoded < this.#items.length && this.#missingAt === null; this.#decoded++) {
      const { item, source, text } = this.#items[this.#decoded]!;
      const expected = this.#fromIndex + this.#entries.length;
      if (item.index !== expected) {
        if (item.index < expected) throw new SessionCorruptError(source, 1, 'entry item overlaps the one before it');
        this.#missingAt = expected;
        break;
      }
      const lines = typeof text === 'string' ? text : await text;
      if (lines === null) {
        this.#missingAt = expected;
        break;
      }
      decodeItemText(lines, item.count, source, this.#entries);
      this.#bytes += Buffer.byteLength(lines);
      if (item.batchEnd) {
        this.#committed = this.#entries.length;
        this.#bytesAt.set(this.#committed, this.#bytes);
      }
    }
  }

  /**
   * The entries of whole batches, no further than META's count (a transaction landing while
   * the pages were read may have added items past it); a read that stopped short of that
   * count says where.
   */
  end(meta: MetaRecord | null): SequenceEnd {
    const fromIndex = this.#fromIndex;
    const limit = meta === null ? this.#committed : Math.min(this.#committed, meta.metadata.entryCount - fromIndex);
    let missingAt = this.#missingAt;
    if (meta !== null && limit < meta.metadata.entryCount - fromIndex) missingAt ??= fromIndex + limit;
    const entries = this.#entries;
    entries.length = Math.max(limit, 0);
    return { entries, bytes: this.#bytesAt.get(entries.length) ?? this.#bytes, missingAt };
  }
}
