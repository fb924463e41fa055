import { describe, expect, it } from 'vitest';
import { describeSessionStoreConformance } from '../testing/conformance/index.js';
import { CapturingStore, RecordFactory } from '../testing/index.js';
import { MemoryStore } from './memory-store.js';

describeSessionStoreConformance('MemoryStore', {
  create: async () => new MemoryStore(),
  reopen: async (store) => MemoryStore.open(store as MemoryStore),
});

describeSessionStoreConformance('CapturingStore', {
  create: async () => new CapturingStore(),
  reopen: async (store) => new CapturingStore(MemoryStore.open((store as CapturingStore).inner as MemoryStore)),
});

describe('MemoryStore', () => {
  it('exposes the appended entries, chained, for assertions', async () => {
    const store = new MemoryStore({ sessionId: 'fixed' });
    const f = new RecordFactory();
    const [a, b] = [f.user('q'), f.assistant('a')];
    await store.appendMessages([a!, b!]);
    expect(store.entries).toEqual([
      { ...a, parent_id: null },
      { ...b, parent_id: a!.id },
    ]);
    expect(store.sessionId()).toBe('fixed');
  });

  it('copies what it is given, so later mutation of the batch changes nothing stored', async () => {
    const store = new MemoryStore();
    const record = new RecordFactory().user('original');
    await store.appendMessages([record]);
    (record as { message: { content: string } }).message.content = 'mutated';
    expect((await store.loadConversation()).danglingUser).toBe('original');
  });
});
