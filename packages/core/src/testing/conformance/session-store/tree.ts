import { expect, it } from 'vitest';
import { EntryNotFoundError } from '../../../errors.js';
import { appendTwoTurns, said, type StoreSuite } from './suite.js';

/** Reading the whole tree, and refusing an entry the session does not hold. */
export function describeTreeContract({ factory, records }: StoreSuite): void {
  it('reads the whole tree in log order: leaves, branch points, paths, previews', async () => {
    const store = await factory.create();
    const f = records();
    const { q1, a1, q2, a2 } = await appendTwoTurns(store, f);
    await store.loadConversation({ at: a1.id });
    const q2b = f.user('q2b   spread\nover lines');
    const a2b = f.assistant('a2b');
    await store.appendMessages([q2b, a2b]);
    await store.switchLeaf(a2.id);
    const tree = await (await factory.reopen(store)).loadTree();
    expect(tree.entries.map((entry) => entry.type)).toEqual(['message', 'message', 'message', 'message', 'message', 'message', 'leaf']);
    expect(tree.entries.slice(0, 6).map((entry) => entry.id)).toEqual([q1.id, a1.id, q2.id, a2.id, q2b.id, a2b.id]);
    expect(tree.activeLeaf).toBe(a2.id);
    expect(tree.leaves.map((entry) => entry.id)).toEqual([a2.id, a2b.id]);
    expect(tree.branchPoints.map((entry) => entry.id)).toEqual([a1.id]);
    expect(tree.children(a1.id).map((entry) => entry.id)).toEqual([q2.id, q2b.id]);
    expect(tree.pathTo(a2.id).map((entry) => entry.id)).toEqual([q1.id, a1.id, q2.id, a2.id]);
    expect(tree.pathTo(a2b.id).map((entry) => entry.id)).toEqual([q1.id, a1.id, q2b.id, a2b.id]);
    expect(tree.preview(q2b.id)).toBe('q2b spread over lines');
    expect(tree.load(a2b.id).conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2b   spread\nover lines', 'a2b']);
    expect(tree.load(q2b.id).danglingUser).toBe('q2b   spread\nover lines');
  });

  it('refuses an entry the session does not hold with EntryNotFoundError, writing nothing', async () => {
    const store = await factory.create();
    await appendTwoTurns(store, records());
    await expect(store.switchLeaf('no-such-entry')).rejects.toBeInstanceOf(EntryNotFoundError);
    await expect(store.loadConversation({ at: 'no-such-entry' })).rejects.toBeInstanceOf(EntryNotFoundError);
    await expect(store.fork('no-such-entry')).rejects.toBeInstanceOf(EntryNotFoundError);
    expect((await (await factory.reopen(store)).loadTree()).entries).toHaveLength(4);
  });
}
