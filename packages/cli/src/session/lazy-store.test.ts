import { FSJSONLStore } from '@panto/core';
import { describeSessionStoreConformance } from '@panto/core/testing/conformance';
import { RecordFactory } from '@panto/core/testing';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LazyFSJSONLStore } from './lazy-store.js';
import { tempDir } from '../../../../test/support/temp-dir.js';

const shared = await tempDir();
afterAll(() => shared.cleanup());
let count = 0;

describeSessionStoreConformance('LazyFSJSONLStore', {
  create: async () => new LazyFSJSONLStore(join(shared.path, `c${++count}`), { cwd: shared.path }),
  reopen: async (store) => {
    const file = (store as LazyFSJSONLStore).getSessionFile();
    // Nothing appended yet: no file, and another handle sees the same empty session.
    return file === undefined ? store : FSJSONLStore.open(file);
  },
});

describe('LazyFSJSONLStore', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: dir, cleanup } = await tempDir());
  });
  afterEach(async () => cleanup());

  it('creates no file until the first append', async () => {
    const store = new LazyFSJSONLStore(join(dir, 'sessions'), { cwd: dir });
    expect(store.getSessionFile()).toBeUndefined();
    expect((await store.loadConversation()).conversation.messages).toEqual([]);
    await expect(readdir(join(dir, 'sessions'))).rejects.toThrow(/ENOENT/);
  });

  it('creates <sessionId>.jsonl with the first append, which is durable when it resolves', async () => {
    const store = new LazyFSJSONLStore(join(dir, 'sessions'), { cwd: dir, sessionId: 'fixed-id' });
    const f = new RecordFactory();
    const system = f.message({ role: 'system', content: 'sys', mode: 'replace' });
    await store.appendMessages([system]);
    expect(store.getSessionFile()).toBe(join(dir, 'sessions', 'fixed-id.jsonl'));
    const reopened = await FSJSONLStore.open(store.getSessionFile()!);
    expect(reopened.header()).toMatchObject({ id: 'fixed-id', cwd: dir });
    expect((await reopened.loadConversation()).conversation.systemPrompt()).toBe('sys');
  });
});
