import { decodeSession } from '@panto/core';
import { RecordFactory } from '@panto/core/testing';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LazyFSJSONLStore } from './lazy-store.js';
import { tempDir } from './test-support.js';

describe('LazyFSJSONLStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: dir, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());

  it('holds system messages without creating a file', async () => {
    const store = new LazyFSJSONLStore(join(dir, 'sessions'), { cwd: dir });
    const f = new RecordFactory();
    await store.appendMessages([f.message({ role: 'system', content: 'sys', mode: 'replace' })]);
    expect(store.getSessionFile()).toBeUndefined();
    await expect(readdir(join(dir, 'sessions'))).rejects.toThrow(/ENOENT/);
    expect((await store.loadConversation()).conversation.systemPrompt()).toBe('sys');
  });

  it('creates <sessionId>.jsonl with the first other message, writing the held ones first, in order', async () => {
    const store = new LazyFSJSONLStore(join(dir, 'sessions'), { cwd: dir, sessionId: 'fixed-id' });
    const f = new RecordFactory();
    const system = f.message({ role: 'system', content: 'sys', mode: 'replace' });
    const extra = f.message({ role: 'system', content: 'more', mode: 'append' });
    const user = f.user('hello');
    await store.appendMessages([system]);
    await store.appendMessages([extra]);
    await store.appendMessages([user]);
    expect(store.getSessionFile()).toBe(join(dir, 'sessions', 'fixed-id.jsonl'));
    const decoded = decodeSession(await readFile(store.getSessionFile()!), 'file');
    expect(decoded.header).toMatchObject({ id: 'fixed-id', cwd: dir, timestamp: system.timestamp });
    expect(decoded.entries.map((entry) => entry.id)).toEqual([system.id, extra.id, user.id]);
    expect(decoded.entries.map((entry) => entry.parent_id)).toEqual([null, system.id, extra.id]);
    expect(store.activeModel()).toEqual({ provider: 'scripted', model: 'scripted-1' });
    expect((await store.loadConversation()).danglingUser).toBe('hello');
  });

  it('rejects a held batch with a duplicate id at once', async () => {
    const store = new LazyFSJSONLStore(dir, { cwd: dir });
    const record = new RecordFactory().message({ role: 'system', content: 'sys', mode: 'replace' });
    await store.appendMessages([record]);
    await expect(store.appendMessages([record])).rejects.toThrow(/duplicate entry id/);
  });
});
