import { mkdtemp, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AmbiguousSessionIdError, InvalidSessionIdError, SessionNotFoundError } from '../errors.js';
import { RecordFactory } from '../testing/index.js';
import { findMostRecentSession, listSessions, resolveSessionId } from './fs-catalog.js';
import { FSJSONLStore } from './fs-jsonl-store.js';

const root = await mkdtemp(join(tmpdir(), 'panto-catalog-'));
afterAll(() => rm(root, { recursive: true, force: true }));

async function sessionsIn(dir: string, ids: string[]) {
  const stores: FSJSONLStore[] = [];
  for (const [i, id] of ids.entries()) {
    const store = await FSJSONLStore.create(dir, { sessionId: id, clock: () => new Date(Date.UTC(2026, 0, 1 + i)) });
    const f = new RecordFactory(id);
    await store.appendMessages([f.user(`  prompt   number\n${i} ${'long '.repeat(i === 2 ? 40 : 1)}`), f.assistant('answer')]);
    await utimes(store.getSessionFile(), new Date(), new Date(Date.UTC(2026, 0, 10 - i)));
    stores.push(store);
  }
  return stores;
}

describe('listSessions', () => {
  it('lists id, file, times, message count and a one-line first prompt, newest first', async () => {
    const dir = join(root, 'list');
    await sessionsIn(dir, ['aaa-1', 'bbb-2', 'ccc-3']);
    await writeFile(join(dir, 'notes.txt'), 'not a session');
    await writeFile(join(dir, 'broken.jsonl'), 'garbage\n');
    const sessions = await listSessions(dir);
    expect(sessions.map((s) => s.id)).toEqual(['aaa-1', 'bbb-2', 'ccc-3']);
    expect(sessions[0]).toEqual({
      id: 'aaa-1',
      file: join(dir, 'aaa-1.jsonl'),
      created: new Date(Date.UTC(2026, 0, 1)),
      modified: new Date(Date.UTC(2026, 0, 10)),
      messageCount: 2,
      firstPrompt: 'prompt number 0 long',
      lastPrompt: 'prompt number 0 long',
    });
    expect(sessions[2]!.firstPrompt).toHaveLength(100);
    expect(sessions[2]!.firstPrompt!.endsWith('…')).toBe(true);
  });

  it('returns [] for a missing folder, and findMostRecentSession null', async () => {
    expect(await listSessions(join(root, 'missing'))).toEqual([]);
    expect(await findMostRecentSession(join(root, 'missing'))).toBeNull();
  });

  it('finds the most recently modified session', async () => {
    const dir = join(root, 'recent');
    await sessionsIn(dir, ['x1', 'x2']);
    expect((await findMostRecentSession(dir))?.id).toBe('x1');
  });
});

describe('resolveSessionId', () => {
  const dir = join(root, 'resolve');
  const ready = sessionsIn(dir, ['0190aaaa-1111', '0190aaaa-2222', '0190bbbb-3333']);

  it('resolves a full id and a unique prefix', async () => {
    await ready;
    expect((await resolveSessionId(dir, '0190aaaa-2222')).id).toBe('0190aaaa-2222');
    expect((await resolveSessionId(dir, '0190b')).file).toBe(join(dir, '0190bbbb-3333.jsonl'));
    expect((await resolveSessionId(dir, '0190bbbb-3333.jsonl')).id).toBe('0190bbbb-3333');
  });

  it('names every candidate of an ambiguous prefix', async () => {
    await ready;
    const error = await resolveSessionId(dir, '0190a').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AmbiguousSessionIdError);
    expect((error as AmbiguousSessionIdError).candidates).toEqual(['0190aaaa-1111', '0190aaaa-2222']);
  });

  it('says an unknown id is not found', async () => {
    await ready;
    await expect(resolveSessionId(dir, 'ffff')).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(resolveSessionId(join(root, 'nowhere'), 'ffff')).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  it.each(['../0190aaaa-1111', '0190/aaaa', '..', 'a\\b', '', 'x\u0000y'])('rejects %j as an invalid id', async (value) => {
    await ready;
    await expect(resolveSessionId(dir, value)).rejects.toBeInstanceOf(InvalidSessionIdError);
  });
});
