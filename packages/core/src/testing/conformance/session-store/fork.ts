import { expect, it } from 'vitest';
import { appendTwoTurns, said, type StoreSuite, withoutFraming } from './suite.js';

/** Forking the path to an entry into a new session. */
export function describeForkContract({ factory, records }: StoreSuite): void {
  it('forks the path to an entry into a new session, ids and contents kept, the original unchanged', async () => {
    const store = await factory.create();
    const f = records();
    const { q1, a1 } = await appendTwoTurns(store, f);
    const before = (await store.loadTree()).entries.map(withoutFraming);
    const fork = await store.fork(a1.id);
    expect(fork.sessionId()).not.toBe(store.sessionId());
    const forked = await (await factory.reopen(fork)).loadTree();
    expect(forked.entries.map(withoutFraming)).toEqual(before.slice(0, 2));
    expect(forked.entries.map((entry) => entry.id)).toEqual([q1.id, a1.id]);
    const reopened = await factory.reopen(fork);
    expect((await reopened.loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1']);
    await reopened.appendMessages([f.user('only in the fork'), f.assistant('forked')]);
    expect((await (await factory.reopen(fork)).loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1', 'only in the fork', 'forked']);
    expect((await (await factory.reopen(store)).loadTree()).entries.map(withoutFraming)).toEqual(before);
  });
}
