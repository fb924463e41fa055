import { expect, it } from 'vitest';
import { usage } from '../../fixtures.js';
import type { StoreSuite } from './suite.js';

/** What a load rebuilds: an empty session, a tail of unanswered tool calls, the active model, a compaction. */
export function describeLoadContract({ factory, records }: StoreSuite): void {
  it('loads a new session as empty, with no dangling prompt and no active model', async () => {
    const store = await factory.create();
    const loaded = await store.loadConversation();
    expect(loaded.conversation.messages).toEqual([]);
    expect(loaded.danglingUser).toBeNull();
    expect(store.activeModel()).toBeNull();
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
}
