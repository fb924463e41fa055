import { expect, it } from 'vitest';
import type { StoreSuite } from './suite.js';

/** The prompt nobody answered: kept out of the conversation, and the next entry written as its sibling. */
export function describeDanglingPromptContract({ factory, records }: StoreSuite): void {
  it('returns a trailing unanswered user prompt as danglingUser, outside the conversation', async () => {
    const store = await factory.create();
    const f = records();
    await store.appendMessages([f.user('first')]);
    await store.appendMessages([f.assistant('answer')]);
    await store.appendMessages([f.user('unanswered')]);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.danglingUser).toBe('unanswered');
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  it('writes the next entry after a resumed dangling prompt as its sibling', async () => {
    const store = await factory.create();
    const f = records();
    await store.appendMessages([f.user('first'), f.assistant('answer')]);
    await store.appendMessages([f.user('lost prompt')]);
    const resumed = await factory.reopen(store);
    expect((await resumed.loadConversation()).danglingUser).toBe('lost prompt');
    await resumed.appendMessages([f.user('edited prompt')]);
    await resumed.appendMessages([f.assistant('edited answer')]);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.danglingUser).toBeNull();
    expect(loaded.conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual(['first', 'assistant', 'edited prompt', 'assistant']);
  });
}
