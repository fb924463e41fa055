import { expect, it } from 'vitest';
import { SessionConflictError } from '../../../errors.js';
import { usage } from '../../fixtures.js';
import { appendTwoTurns, said, type StoreSuite } from './suite.js';

/** Moving about the tree: continuing from an earlier entry, switching the active leaf, a new root. */
export function describeBranchContract({ factory, records }: StoreSuite): void {
  it('continues from an earlier entry: the next batch branches there, and every later load follows the new branch', async () => {
    const store = await factory.create();
    const f = records();
    const { q1, a1, a2 } = await appendTwoTurns(store, f);
    const other = await factory.reopen(store);
    const at = await other.loadConversation({ at: a1.id });
    expect(at.conversation.messages.map(said)).toEqual(['q1', 'a1']);
    expect(at.at?.id).toBe(a1.id);
    expect(at.entries.map((entry) => entry?.id)).toEqual([q1.id, a1.id]);
    const q2b = f.user('q2b');
    await other.appendMessages([q2b, f.assistant('a2b')]);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2b', 'a2b']);
    const tree = await store.loadTree();
    expect(tree.branchPoints.map((entry) => entry.id)).toEqual([a1.id]);
    expect(tree.leaves.map((entry) => entry.id)).toEqual([a2.id, tree.activeLeaf]);
    expect(tree.get(q2b.id)?.parent_id).toBe(a1.id);
    // The first handle last saw the other branch's head: its append is a conflict.
    await expect(store.appendMessages([f.user('stale')])).rejects.toBeInstanceOf(SessionConflictError);
  });

  it('switches the active leaf without sending anything; a reopened handle resumes there, and the next batch follows it', async () => {
    const store = await factory.create();
    const f = records();
    const { a1, q2, a2 } = await appendTwoTurns(store, f);
    const brancher = await factory.reopen(store);
    await brancher.loadConversation({ at: a1.id });
    await brancher.appendMessages([f.user('q2b'), f.assistant('a2b', { provider: 'pb', model: 'mb' })]);
    expect(brancher.activeModel()).toEqual({ provider: 'pb', model: 'mb' });

    const switched = await brancher.switchLeaf(a2.id);
    expect(switched.conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(switched.danglingUser).toBeNull();
    expect(switched.at?.id).toBe(a2.id);
    expect(brancher.activeModel()).toEqual({ provider: 'p2', model: 'm2' });

    const resumed = await factory.reopen(store);
    expect((await resumed.loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(resumed.activeModel()).toEqual({ provider: 'p2', model: 'm2' });
    const tree = await resumed.loadTree();
    expect(tree.activeLeaf).toBe(a2.id);
    const leafEntry = tree.entries.at(-1)!;
    expect(leafEntry).toMatchObject({ type: 'leaf', parent_id: a2.id });

    const q3 = f.user('q3');
    await resumed.appendMessages([q3, f.assistant('a3')]);
    expect((await resumed.loadTree()).get(q3.id)?.parent_id).toBe(a2.id);
    expect((await (await factory.reopen(store)).loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2', 'a2', 'q3', 'a3']);
    expect(q2.id).not.toBe(q3.id);
  });

  it('writes nothing to switch to the leaf that is already active', async () => {
    const store = await factory.create();
    const { a2 } = await appendTwoTurns(store, records());
    const before = (await store.loadTree()).entries.length;
    const loaded = await store.switchLeaf(a2.id);
    expect(loaded.conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect((await store.loadTree()).entries).toHaveLength(before);
  });

  it('starts a new root when loaded at null', async () => {
    const store = await factory.create();
    const f = records();
    await appendTwoTurns(store, f);
    const root = await store.loadConversation({ at: null });
    expect(root.conversation.messages).toEqual([]);
    expect(root.at).toBeNull();
    const fresh = f.user('from scratch');
    await store.appendMessages([fresh, f.assistant('new root')]);
    const tree = await store.loadTree();
    expect(tree.get(fresh.id)?.parent_id).toBeNull();
    expect(tree.children(null)).toHaveLength(2);
    expect((await (await factory.reopen(store)).loadConversation()).conversation.messages.map(said)).toEqual(['from scratch', 'new root']);
  });
}

/** What belongs to one branch stays there: its dangling prompt, its compaction. */
export function describeBranchIsolationContract({ factory, records }: StoreSuite): void {
  it('keeps a dangling prompt on another branch out of the conversation, and gives it back when switched to', async () => {
    const store = await factory.create();
    const f = records();
    const q1 = f.user('q1');
    const a1 = f.assistant('a1');
    const lost = f.user('lost prompt');
    await store.appendMessages([q1, a1]);
    await store.appendMessages([lost]);
    const other = await factory.reopen(store);
    expect((await other.loadConversation()).danglingUser).toBe('lost prompt');
    await other.loadConversation({ at: a1.id });
    await other.appendMessages([f.user('another'), f.assistant('answered')]);
    const loaded = await (await factory.reopen(store)).loadConversation();
    expect(loaded.danglingUser).toBeNull();
    expect(loaded.conversation.messages.map(said)).toEqual(['q1', 'a1', 'another', 'answered']);

    const back = await other.switchLeaf(lost.id);
    expect(back.danglingUser).toBe('lost prompt');
    expect(back.at?.id).toBe(lost.id);
    expect(back.conversation.messages.map(said)).toEqual(['q1', 'a1']);
    const resent = f.user('lost prompt, edited');
    await other.appendMessages([resent]);
    const tree = await (await factory.reopen(store)).loadTree();
    expect(tree.get(resent.id)?.parent_id).toBe(a1.id);
    expect((await (await factory.reopen(store)).loadConversation()).danglingUser).toBe('lost prompt, edited');
  });

  it('keeps a compaction on one branch out of every other branch', async () => {
    const store = await factory.create();
    const f = records();
    const system = f.message({ role: 'system', content: 'sys', mode: 'replace' });
    const a1 = f.assistant('a1');
    await store.appendMessages([system, f.user('q1'), a1]);
    await store.appendMessages([
      {
        type: 'compaction',
        id: f.nextId(),
        timestamp: '2026-01-01T00:10:00.000Z',
        summary: 'compacted',
        provider: 'scripted',
        model: 'scripted-1',
        usage: usage(5, 5),
        prior_usage: usage(0, 0),
      },
    ]);
    const a2 = f.assistant('a2');
    await store.appendMessages([f.user('q2'), a2]);
    expect((await store.loadConversation()).conversation.messages.map(said)).toEqual(['sys', 'summary: compacted', 'q2', 'a2']);

    await store.loadConversation({ at: a1.id });
    await store.appendMessages([f.user('q3'), f.assistant('a3')]);
    const other = await factory.reopen(store);
    expect((await other.loadConversation()).conversation.messages.map(said)).toEqual(['sys', 'q1', 'a1', 'q3', 'a3']);
    expect((await other.switchLeaf(a2.id)).conversation.messages.map(said)).toEqual(['sys', 'summary: compacted', 'q2', 'a2']);
  });
}
