import { describe, expect, it } from 'vitest';
import { InvalidBatchError, SessionConflictError } from '../errors.js';
import type { DiskMessage, SessionStore } from '../session-store.js';
import { everyKindOfMessage, RecordFactory, usage } from './fixtures.js';

// `@panto/core/testing/conformance`: the contract suites, which need vitest. The store suite
// is below; the provider and extension host suites have their own modules.
export { describeProviderConformance } from './provider-conformance.js';
export {
  describeExtensionHostConformance,
  type ExtensionHostHarness,
  type ExtensionHostRun,
  type ExtensionHostRunSetup,
} from './extension-host-conformance.js';
export type {
  ExpectedAgentRequests,
  ExpectedRequests,
  ProviderConformanceHarness,
  ProviderConformanceOptions,
  RecordedResponses,
  WireFacts,
} from './provider-conformance-harness.js';

export interface SessionStoreFactory {
  /** A store on a new, empty session. */
  create(): Promise<SessionStore>;
  /** A second, independent handle on the same session, opened as another process would. */
  reopen(store: SessionStore): Promise<SessionStore>;
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
      await expect(store.appendMessages([f.user('three'), f.assistant('four'), duplicate])).rejects.toBeInstanceOf(
        InvalidBatchError,
      );
      const repeatedInBatch = f.user('five');
      await expect(store.appendMessages([repeatedInBatch, { ...repeatedInBatch }])).rejects.toBeInstanceOf(
        InvalidBatchError,
      );
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
      expect(loaded.conversation.messages[119]).toMatchObject({ role: 'assistant', content: [{ text: `answer 59 ${'x'.repeat(100)}` }] });
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
      expect(loaded.conversation.messages.map((m) => (m.role === 'user' ? m.content : m.role))).toEqual([
        'first',
        'assistant',
        'edited prompt',
        'assistant',
      ]);
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

    it('rejects the second handle\'s append after the first\'s with SessionConflictError, writing nothing', async () => {
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
  });
}
