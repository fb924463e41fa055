import { describe, expect, it } from 'vitest';
import { type LogItem, liveItems } from './log-read.js';
import type { LogHead } from './log-types.js';

const now = new Date('2027-01-01T00:00:00.000Z');
const seconds = now.getTime() / 1000;
const head = (count: number, liveFrom = 0): LogHead => ({ count, liveFrom, expiresAt: null, lastBatch: null, updatedAt: null });
const item = (index: number, count: number, expiresAt: number | null = null): LogItem => ({ sk: `E##${index}`, index, count, expiresAt, item: {} });

describe('liveItems', () => {
  it('keeps the items from live_from to the count, in order', () => {
    expect(liveItems(head(5, 2), [item(0, 2), item(2, 2), item(4, 1)], now, false)?.map((i) => i.index)).toEqual([2, 4]);
  });

  it('leaves out items a newer append committed after the head was read', () => {
    expect(liveItems(head(3), [item(0, 3), item(3, 2)], now, false)?.map((i) => i.index)).toEqual([0]);
  });

  it('gives null for a gap, and for items that stop short of the count (a read to do again)', () => {
    expect(liveItems(head(5), [item(0, 2), item(3, 2)], now, false)).toBeNull();
    expect(liveItems(head(5), [item(0, 2)], now, false)).toBeNull();
    expect(liveItems(head(5), [], now, false)).toBeNull();
  });

  it('with a TTL, drops what expired and everything older, and accepts items DynamoDB already deleted at the start', () => {
    const items = [item(0, 1, seconds - 10), item(1, 1, seconds + 10), item(2, 1, seconds - 5), item(3, 2, seconds + 100)];
    expect(liveItems(head(5), items, now, true)?.map((i) => i.index)).toEqual([3]);
    expect(liveItems(head(5), [item(3, 2, seconds + 100)], now, true)?.map((i) => i.index)).toEqual([3]);
    expect(liveItems(head(5), [item(0, 5, seconds - 1)], now, true)).toEqual([]);
  });

  it('reads a tail from wherever it began, as long as it reaches the count', () => {
    expect(liveItems(head(10), [item(6, 2), item(8, 2)], now, false, 3)?.map((i) => i.index)).toEqual([6, 8]);
    expect(liveItems(head(10), [item(6, 2)], now, false, 3)).toBeNull();
  });
});
