import { AmbiguousSessionIdError, SessionNotFoundError } from '@panto/core';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveSession, shortIds } from './short-id.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

// Two sessions of the same minute: their first 8 characters are the same timestamp.
const A = '01a22fd6-1234-7abc-8def-00000000aaaa';
const B = '01a22fd6-1299-7abc-9def-11111111bbbb';
const C = '01a22fd6-1299-7abc-9def-22221111bbbb';

describe('shortIds', () => {
  it('takes the random end of each id, longer only where two would be the same', () => {
    const short = shortIds([A, B, C]);
    expect(short.get(A)).toBe('0000aaaa');
    expect(short.get(B)).toBe('111111bbbb'.slice(-9));
    expect(short.get(C)).toBe('221111bbbb'.slice(-9));
    for (const [id, tail] of short) expect([A, B, C].filter((other) => other.endsWith(tail))).toEqual([id]);
  });
});

describe('resolveSession', () => {
  let dir: { path: string; cleanup: () => Promise<void> };
  beforeEach(async () => {
    dir = await tempDir();
    for (const id of [A, B, C]) {
      await writeFile(join(dir.path, `${id}.jsonl`), `${JSON.stringify({ type: 'session', version: 2, id, timestamp: new Date().toISOString() })}\n`);
    }
  });
  afterEach(() => dir.cleanup());

  it('finds a session by its short id, its full id, or a unique prefix', async () => {
    expect((await resolveSession(dir.path, '0000aaaa')).id).toBe(A);
    expect((await resolveSession(dir.path, '111111bbbb'.slice(-9))).id).toBe(B);
    expect((await resolveSession(dir.path, C)).id).toBe(C);
    expect((await resolveSession(dir.path, '01a22fd6-123')).id).toBe(A);
  });

  it('says which sessions an ambiguous value matches, and when none does', async () => {
    await expect(resolveSession(dir.path, '01a22fd6')).rejects.toBeInstanceOf(AmbiguousSessionIdError);
    await expect(resolveSession(dir.path, '1111bbbb')).rejects.toThrow(/matches 2 sessions/);
    await expect(resolveSession(dir.path, 'ffffffff')).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});
