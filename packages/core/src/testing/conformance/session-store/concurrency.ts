import { expect, it } from 'vitest';
import { SessionConflictError } from '../../../errors.js';
import { appendTwoTurns, said, type StoreSuite } from './suite.js';

/** Two handles on one session: the second to append after the first is refused, and catches up by loading. */
export function describeConcurrencyContract({ factory, records }: StoreSuite): void {
  it("rejects the second handle's append after the first's with SessionConflictError, writing nothing", async () => {
    const first = await factory.create();
    const f = records();
    await first.appendMessages([f.user('base')]);
    const second = await factory.reopen(first);
    await first.appendMessages([f.assistant('from first')]);
    const error = await second.appendMessages([f.assistant('from second')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(SessionConflictError);
    expect((error as SessionConflictError).sessionId).toBe(first.sessionId());
    const loaded = await (await factory.reopen(first)).loadConversation();
    expect(loaded.conversation.messages).toHaveLength(2);
    expect(loaded.conversation.messages[1]).toMatchObject({ content: [{ text: 'from first' }] });
    // The first handle goes on; the second catches up by loading, then appends.
    await first.appendMessages([f.user('again'), f.assistant('reply')]);
    await second.loadConversation();
    await second.appendMessages([f.user('second question'), f.assistant('second answer')]);
    const final = await (await factory.reopen(first)).loadConversation();
    expect(final.conversation.messages).toHaveLength(6);
    expect(final.conversation.messages[4]).toMatchObject({ content: 'second question' });
    expect(final.danglingUser).toBeNull();
  });
}

/** Two handles on one tree: a switch or an append that raced another handle's write is refused. */
export function describeTreeConcurrencyContract({ factory, records }: StoreSuite): void {
  it('rejects a switch after another handle appended, and an append after another handle switched, with SessionConflictError', async () => {
    const store = await factory.create();
    const f = records();
    const { a1 } = await appendTwoTurns(store, f);
    const second = await factory.reopen(store);
    await second.loadConversation();
    await store.appendMessages([f.user('q3'), f.assistant('a3')]);
    await expect(second.switchLeaf(a1.id)).rejects.toBeInstanceOf(SessionConflictError);
    const afterRace = await (await factory.reopen(store)).loadTree();
    expect(afterRace.entries.some((entry) => entry.type === 'leaf')).toBe(false);
    expect(afterRace.entries).toHaveLength(6);

    await second.loadConversation();
    await second.switchLeaf(a1.id);
    await expect(store.appendMessages([f.user('q4')])).rejects.toBeInstanceOf(SessionConflictError);
    expect((await (await factory.reopen(store)).loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1']);
  });
}
