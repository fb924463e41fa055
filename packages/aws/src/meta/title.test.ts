import { describe, expect, it } from 'vitest';
import { forkTitle, TITLE_MAX_LENGTH } from './title.js';

describe('forkTitle', () => {
  it('marks a fork (fork), a fork of a fork (fork 2), and so on', () => {
    expect(forkTitle('Parser refactor')).toBe('Parser refactor (fork)');
    expect(forkTitle('Parser refactor (fork)')).toBe('Parser refactor (fork 2)');
    expect(forkTitle('Parser refactor (fork 9)')).toBe('Parser refactor (fork 10)');
    expect(forkTitle(null)).toBeNull();
  });

  it('cuts a long title to leave room for the mark, within the longest title kept', () => {
    const long = 'é'.repeat(TITLE_MAX_LENGTH);
    const forked = forkTitle(long)!;
    expect(Array.from(forked)).toHaveLength(TITLE_MAX_LENGTH);
    expect(forked.endsWith('… (fork)')).toBe(true);
  });
});
