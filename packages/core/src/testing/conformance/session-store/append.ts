import { expect, it } from 'vitest';
import { InvalidBatchError } from '../../../errors.js';
import type { DiskMessage } from '../../../session/records.js';
import { everyKindOfMessage, usage } from '../../fixtures.js';
import type { StoreSuite } from './suite.js';

/** Appends: one stable session, every kind of message, batches kept whole or refused whole. */
export function describeAppendContract({ factory, records }: StoreSuite): void {
  it('keeps a stable session id across calls and handles', async () => {
    const store = await factory.create();
    const id = store.sessionId();
    expect(typeof id).toBe('string');
    expect(id.length).toBeGreaterThan(0);
    await store.appendMessages([records().user('hi')]);
    expect(store.sessionId()).toBe(id);
    const other = await factory.reopen(store);
    expect(other.sessionId()).toBe(id);
    expect((await factory.create()).sessionId()).not.toBe(id);
  });

  it('round-trips every message and block kind, with usage, in order', async () => {
    const store = await factory.create();
    const f = records();
    const messages = everyKindOfMessage();
    await store.appendMessages(messages.slice(0, 3).map((m) => f.message(m)));
    // The assistant message with its tool results, as the agent commits them.
    await store.appendMessages(messages.slice(3, 7).map((m) => f.message(m)));
    await store.appendMessages(messages.slice(7).map((m) => f.message(m)));
    expect((await store.loadConversation()).conversation.messages).toEqual(messages);
    const other = await factory.reopen(store);
    const loaded = await other.loadConversation();
    expect(loaded.conversation.messages).toEqual(messages);
    expect(loaded.conversation.usage()).toEqual(usage(1210, 87, 1000, 150));
    expect(loaded.danglingUser).toBeNull();
  });

  it('treats an empty batch as a no-op', async () => {
    const store = await factory.create();
    await store.appendMessages([]);
    expect((await store.loadConversation()).conversation.messages).toEqual([]);
    await store.appendMessages([records().user('after')]);
    expect((await store.loadConversation()).danglingUser).toBe('after');
  });

  it('appends a batch all or nothing: a duplicate id rejects the whole batch', async () => {
    const store = await factory.create();
    const f = records();
    const first = f.user('one');
    await store.appendMessages([first, f.assistant('two')]);
    const duplicate: DiskMessage = { ...f.user('dup'), id: first.id };
    await expect(store.appendMessages([f.user('three'), f.assistant('four'), duplicate])).rejects.toBeInstanceOf(InvalidBatchError);
    const repeatedInBatch = f.user('five');
    await expect(store.appendMessages([repeatedInBatch, { ...repeatedInBatch }])).rejects.toBeInstanceOf(InvalidBatchError);
    const texts = (await (await factory.reopen(store)).loadConversation()).conversation.messages.map((m) =>
      'content' in m && typeof m.content === 'string' ? m.content : m.role === 'assistant' ? m.content[0] : null,
    );
    expect(texts).toEqual(['one', { type: 'text', text: 'two' }]);
    await store.appendMessages([f.user('six')]);
    expect((await store.loadConversation()).danglingUser).toBe('six');
  });

  it('keeps a large batch whole and in order', async () => {
    const store = await factory.create();
    const f = records();
    const batch: DiskMessage[] = [];
    for (let i = 0; i < 60; i++) batch.push(f.user(`question ${i}`), f.assistant(`answer ${i} ${'x'.repeat(100)}`));
    await store.appendMessages(batch);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.conversation.length).toBe(120);
    expect(loaded.conversation.messages[119]).toMatchObject({
      role: 'assistant',
      content: [{ text: `answer 59 ${'x'.repeat(100)}` }],
    });
  });
}
