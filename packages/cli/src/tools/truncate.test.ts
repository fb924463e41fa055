import { describe, expect, it } from 'vitest';
import { formatSize, linesOf, truncateHead, truncateTail } from './truncate.js';

describe('truncateHead / truncateTail', () => {
  const text = ['one', 'two', 'three', 'four', 'five'].join('\n');

  it('returns the text untouched when it fits', () => {
    expect(truncateHead(`${text}\n`, { maxBytes: 1000, maxLines: 10 })).toMatchObject({
      text: `${text}\n`,
      truncated: false,
      totalLines: 5,
    });
    expect(truncateTail(text, { maxBytes: 1000, maxLines: 10 })).toMatchObject({ text, truncated: false });
  });

  it('keeps the first or last lines within the line cap', () => {
    expect(truncateHead(text, { maxBytes: 1000, maxLines: 2 })).toMatchObject({
      text: 'one\ntwo',
      truncated: true,
      keptLines: 2,
      totalLines: 5,
    });
    expect(truncateTail(text, { maxBytes: 1000, maxLines: 2 })).toMatchObject({
      text: 'four\nfive',
      truncated: true,
      keptLines: 2,
    });
  });

  it('keeps whole lines within the byte cap', () => {
    expect(truncateHead(text, { maxBytes: 9, maxLines: 100 })).toMatchObject({ text: 'one\ntwo', keptBytes: 7 });
    expect(truncateTail(text, { maxBytes: 10, maxLines: 100 })).toMatchObject({ text: 'four\nfive', keptBytes: 9 });
  });

  it('cuts a single over-long line without splitting a multi-byte character', () => {
    const line = 'é'.repeat(10); // 20 bytes
    const head = truncateHead(line, { maxBytes: 5, maxLines: 10 });
    expect(head).toMatchObject({ text: 'éé', truncated: true });
    const tail = truncateTail(line, { maxBytes: 5, maxLines: 10 });
    expect(tail).toMatchObject({ text: 'éé', truncated: true });
  });
});

describe('linesOf and formatSize', () => {
  it('does not count a final newline as a line', () => {
    expect(linesOf('a\nb\n')).toEqual(['a', 'b']);
    expect(linesOf('')).toEqual([]);
    expect(linesOf('\n')).toEqual(['']);
  });

  it('formats sizes in B, KB and MB', () => {
    expect(formatSize(512)).toBe('512 B');
    expect(formatSize(2048)).toBe('2.0 KB');
    expect(formatSize(3 * 1024 * 1024)).toBe('3.0 MB');
  });
});
