import { describe, expect, it } from 'vitest';
import { fromKeyPart, keyPart, logEntryIndexOf, logEntrySk, logHeadSk, subOfHeadSk } from './adapter-keys.js';

describe('adapter keys', () => {
  it('leaves no separator in a key part, and reverses it', () => {
    for (const value of ['a#b', 'x/y/z', '%23', '', 'proj#sess', 'subagents/agent-1']) {
      expect(keyPart(value)).not.toMatch(/[#/]/);
      expect(fromKeyPart(keyPart(value))).toBe(value);
    }
  });

  it('keeps two logs of one partition apart even when one name is a prefix of the other', () => {
    expect(logEntrySk('a', 1)).toBe('E#a#000000000001');
    expect(logEntrySk('', 1)).toBe('E##000000000001');
    expect(logEntryIndexOf('a', logEntrySk('a#b', 1))).toBeUndefined();
    expect(logEntryIndexOf('', logEntrySk('a', 1))).toBeUndefined();
    expect(logEntryIndexOf('a', logEntrySk('a', 42))).toBe(42);
  });

  it('reads the log name back from a head key', () => {
    expect(subOfHeadSk(logHeadSk('subagents/x'))).toBe('subagents/x');
    expect(subOfHeadSk(logHeadSk(''))).toBe('');
    expect(subOfHeadSk('E##000000000001')).toBeUndefined();
  });
});
