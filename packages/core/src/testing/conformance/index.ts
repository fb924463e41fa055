import { describe, expect, it } from 'vitest';
import { EntryNotFoundError, InvalidBatchError, SessionConflictError } from '../../errors.js';
import type { Message } from '../../messages.js';
import type { DiskMessage, SessionEntry, SessionStore } from '../../session/store.js';
import { everyKindOfMessage, RecordFactory, usage } from '../fixtures.js';

// `@panto/core/testing/conformance`: the contract suites, which need vitest. The store suite
// is below; the provider and extension host suites have their own modules.
export { describeProviderConformance } from './provider/index.js';
export {
  describeExtensionHostConformance,
  type ExtensionHostHarness,
  type ExtensionHostRun,
  type ExtensionHostRunSetup,
} from './extension-host/index.js';
export type {
  ExpectedAgentRequests,
  ExpectedRequests,
  ProviderConformanceHarness,
  ProviderConformanceOptions,
  RecordedResponses,
  WireFacts,
} from './provider/harness.js';

export interface SessionStoreFactory {
  /** A store on a new, empty session. */
  create(): Promise<SessionStore>;
  /**
   * A second, independent handle on the same session, opened as another process would
   * (also given the stores `fork` returns).
   */
  reopen(store: SessionStore): Promise<SessionStore>;
}

/** What a message says, in a word or two: a prompt's text, an answer's first text, else its role. */
function said(message: Message): string {
  if (message.role === 'user' || message.role === 'system') return message.content;
  if (message.role === 'assistant') {
    const block = message.content[0];
    return block?.type === 'text' ? block.text : 'assistant';
  }
  return message.role === 'compaction' ? `summary: ${message.summary}` : message.role;
}

/** An entry as its line says it, without the framing (`batch_size`) a store adds. */
function content(entry: SessionEntry): SessionEntry {
  const { batch_size: _batchSize, ...rest } = entry as SessionEntry & { batch_size?: number };
  return rest as SessionEntry;
}

/**
 * The behaviour every SessionStore must have. Call it from a test file of your store:
 *
 * @example
 * describeSessionStoreConformance('MemoryStore', {
 *   create: async () => new MemoryStore(),
 *   reopen: async (store) => MemoryStore.open(store as MemoryStore),
 * });
 */
export function describeSessionStoreConformance(name: string, factory: SessionStoreFactory): void {
  describe(`${name} (SessionStore conformance)`, () => {
    const records = () => new RecordFactory(`e${Math.random().toString(36).slice(2, 8)}`);

    it('loads a new session as empty, with no dangling prompt and no active model', async () => {
      const store = await factory.create();
      const loaded = await store.loadConversation();
      expect(loaded.conversation.messages).toEqual([]);
      expect(loaded.danglingUser).toBeNull();
      expect(store.activeModel()).toBeNull();
    });

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

    it('rebuilds a tail of tool calls without results into a conversation providers accept', async () => {
      const store = await factory.create();
      const f = records();
      await store.appendMessages([
        f.user('run it'),
        f.message({
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'c1', name: 'bash', input: { command: 'ls' } },
            { type: 'tool_call', id: 'c2', name: 'read', input: { path: 'x' } },
          ],
          provider: 'scripted',
          model: 'scripted-1',
          usage: usage(1, 1),
          stop_reason: 'tool_use',
        }),
      ]);
      const loaded = await (await factory.reopen(store)).loadConversation();
      const messages = loaded.conversation.messages;
      expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool_result', 'tool_result']);
      expect(messages[2]).toMatchObject({ tool_call_id: 'c1', is_error: true });
      expect(messages[3]).toMatchObject({ tool_call_id: 'c2', is_error: true });
    });

    it('reports the provider and model of the newest entry that names them', async () => {
      const store = await factory.create();
      const f = records();
      await store.appendMessages([f.message({ role: 'system', content: 's', mode: 'replace' })]);
      expect(store.activeModel()).toBeNull();
      await store.appendMessages([f.user('hi', 'anthropic', 'claude-a')]);
      expect(store.activeModel()).toEqual({ provider: 'anthropic', model: 'claude-a' });
      await store.appendMessages([f.assistant('yo', { provider: 'openai', model: 'gpt-b' })]);
      expect(store.activeModel()).toEqual({ provider: 'openai', model: 'gpt-b' });
      const other = await factory.reopen(store);
      await other.loadConversation();
      expect(other.activeModel()).toEqual({ provider: 'openai', model: 'gpt-b' });
    });

    it('loads a compaction as the system messages before it, the summary, and what follows', async () => {
      const store = await factory.create();
      const f = records();
      await store.appendMessages([
        f.message({ role: 'system', content: 'sys', mode: 'replace' }),
        f.user('old question'),
        f.assistant('old answer', { usage: usage(100, 10) }),
      ]);
      await store.appendMessages([
        {
          type: 'compaction',
          id: f.nextId(),
          timestamp: '2026-01-01T00:10:00.000Z',
          summary: 'We talked about old things.',
          provider: 'scripted',
          model: 'scripted-1',
          usage: usage(50, 5),
          prior_usage: usage(100, 10),
        },
      ]);
      await store.appendMessages([f.user('new question'), f.assistant('new answer', { usage: usage(20, 2) })]);
      const loaded = await (await factory.reopen(store)).loadConversation();
      expect(loaded.conversation.messages.map((m) => m.role)).toEqual(['system', 'compaction', 'user', 'assistant']);
      expect(loaded.conversation.messages[1]).toMatchObject({ summary: 'We talked about old things.' });
      expect(loaded.conversation.usage()).toEqual(usage(170, 17));
      expect(store.activeModel()).toEqual({ provider: 'scripted', model: 'scripted-1' });
    });

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

    describe('the tree', () => {
      /** q1 → a1 → q2 → a2, in two batches; returns the records. */
      async function twoTurns(store: SessionStore, f: ReturnType<typeof records>) {
        const q1 = f.user('q1');
        const a1 = f.assistant('a1');
        const q2 = f.user('q2');
        const a2 = f.assistant('a2', { provider: 'p2', model: 'm2' });
        await store.appendMessages([q1, a1]);
        await store.appendMessages([q2, a2]);
        return { q1, a1, q2, a2 };
      }

      it('continues from an earlier entry: the next batch branches there, and every later load follows the new branch', async () => {
        const store = await factory.create();
        const f = records();
        const { q1, a1, a2 } = await twoTurns(store, f);
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
        const { a1, q2, a2 } = await twoTurns(store, f);
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
        const { a2 } = await twoTurns(store, records());
        const before = (await store.loadTree()).entries.length;
        const loaded = await store.switchLeaf(a2.id);
        expect(loaded.conversation.messages.map(said)).toEqual(['q1', 'a1', 'q2', 'a2']);
        expect((await store.loadTree()).entries).toHaveLength(before);
      });

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

      it('rejects a switch after another handle appended, and an append after another handle switched, with SessionConflictError', async () => {
        const store = await factory.create();
        const f = records();
        const { a1 } = await twoTurns(store, f);
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

      it('starts a new root when loaded at null', async () => {
        const store = await factory.create();
        const f = records();
        await twoTurns(store, f);
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

      it('reads the whole tree in log order: leaves, branch points, paths, previews', async () => {
        const store = await factory.create();
        const f = records();
        const { q1, a1, q2, a2 } = await twoTurns(store, f);
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

      it('forks the path to an entry into a new session, ids and contents kept, the original unchanged', async () => {
        const store = await factory.create();
        const f = records();
        const { q1, a1 } = await twoTurns(store, f);
        const before = (await store.loadTree()).entries.map(content);
        const fork = await store.fork(a1.id);
        expect(fork.sessionId()).not.toBe(store.sessionId());
        const forked = await (await factory.reopen(fork)).loadTree();
        expect(forked.entries.map(content)).toEqual(before.slice(0, 2));
        expect(forked.entries.map((entry) => entry.id)).toEqual([q1.id, a1.id]);
        const reopened = await factory.reopen(fork);
        expect((await reopened.loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1']);
        await reopened.appendMessages([f.user('only in the fork'), f.assistant('forked')]);
        expect((await (await factory.reopen(fork)).loadConversation()).conversation.messages.map(said)).toEqual(['q1', 'a1', 'only in the fork', 'forked']);
        expect((await (await factory.reopen(store)).loadTree()).entries.map(content)).toEqual(before);
      });

      it('refuses an entry the session does not hold with EntryNotFoundError, writing nothing', async () => {
        const store = await factory.create();
        await twoTurns(store, records());
        await expect(store.switchLeaf('no-such-entry')).rejects.toBeInstanceOf(EntryNotFoundError);
        await expect(store.loadConversation({ at: 'no-such-entry' })).rejects.toBeInstanceOf(EntryNotFoundError);
        await expect(store.fork('no-such-entry')).rejects.toBeInstanceOf(EntryNotFoundError);
        expect((await (await factory.reopen(store)).loadTree()).entries).toHaveLength(4);
      });
    });
  });
}
