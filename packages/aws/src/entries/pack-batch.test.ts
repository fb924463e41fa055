import { describe, expect, it } from 'vitest';
import { packBatch, type PackLimits } from './pack-batch.js';

const small: PackLimits = { itemText: 100, transactionText: 250, items: 5 };

function line(bytes: number, tag: string): string {
  // bytes excludes the newline packBatch adds
  return tag.padEnd(bytes, '.');
}

describe('packBatch', () => {
  it('packs lines in order into items of at most the item limit, indexed by their first entry', () => {
    const lines = [line(40, 'a'), line(40, 'b'), line(40, 'c'), line(10, 'd')];
    const items = packBatch(lines, 7, small);
    expect(items.map((item) => [item.index, item.count, item.bytes, item.offload, item.batchEnd])).toEqual([
      [7, 2, 82, false, false],
      [9, 2, 52, false, true],
    ]);
    expect(items.map((item) => item.text).join('')).toBe(lines.map((l) => `${l}\n`).join(''));
  });

  it('gives a line over the item limit an item of its own, marked for offload', () => {
    const items = packBatch([line(10, 'a'), line(150, 'b'), line(10, 'c')], 0, small);
    expect(items.map((item) => [item.index, item.count, item.offload])).toEqual([
      [0, 1, false],
      [1, 1, true],
      [2, 1, false],
    ]);
  });

  it('offloads the largest items until the inline text fits one transaction', () => {
    const lines = [line(90, 'a'), line(95, 'b'), line(60, 'c'), line(90, 'd')];
    const items = packBatch(lines, 0, small);
    expect(items.map((item) => [item.bytes, item.offload])).toEqual([
      [91, false],
      [96, true],
      [61, false],
      [91, false],
    ]);
    expect(items.filter((item) => !item.offload).reduce((sum, item) => sum + item.bytes, 0)).toBeLessThanOrEqual(250);
  });

  it('merges the tail into one offloaded item when the batch needs more items than a transaction takes', () => {
    const lines = Array.from({ length: 8 }, (_, i) => line(70, String(i)));
    const items = packBatch(lines, 0, { ...small, transactionText: 10_000 });
    expect(items).toHaveLength(5);
    expect(items.map((item) => [item.index, item.count, item.offload])).toEqual([
      [0, 1, false],
      [1, 1, false],
      [2, 1, false],
      [3, 1, false],
      [4, 4, true],
    ]);
    expect(items.map((item) => item.text).join('')).toBe(lines.map((l) => `${l}\n`).join(''));
    expect(items[4]!.batchEnd).toBe(true);
  });

  it('counts bytes as UTF-8, not characters', () => {
    const items = packBatch(['é'.repeat(30), 'é'.repeat(30)], 0, small);
    expect(items.map((item) => item.bytes)).toEqual([61, 61]);
  });
});
