import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from '../agent.js';
import type { Provider } from '../provider.js';
import type { DiskMessage } from '../session-store.js';
import { CapturingStore, FakeLLMServer, ScriptedProvider, type FakeReply, type ScriptedReply } from '../testing/index.js';
import { ToolRegistry } from '../tool.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';

const clockSchema = { type: 'object' as const, properties: { zone: { type: 'string' } }, required: ['zone'] };

function clockTools(): ToolRegistry {
  return new ToolRegistry([
    { name: 'clock', description: 'The current time', input_schema: clockSchema, execute: async (input) => `12:00 in ${String(input['zone'])}` },
  ]);
}

/** The same three replies, for the fake server and for the scripted provider. */
const replies: { fake: FakeReply; scripted: ScriptedReply }[] = [
  {
    fake: {
      thinking: { thinking: 'I need the clock.', signature: 'sig-1==' },
      text: 'Let me check the clock.',
      toolCalls: [{ id: 'toolu_01Clock', name: 'clock', input: { zone: 'UTC' } }],
      usage: { input: 120, output: 30, cacheWrite: 100 },
    },
    scripted: {
      thinking: [{ thinking: 'I need the clock.', signature: 'sig-1==' }],
      text: 'Let me check the clock.',
      toolCalls: [{ id: 'toolu_01Clock', name: 'clock', input: { zone: 'UTC' } }],
      usage: { input_tokens: 120, output_tokens: 30, cache_write_tokens: 100 },
    },
  },
  {
    fake: { text: 'It is 12:00 in UTC.', usage: { input: 20, output: 8, cacheRead: 100 } },
    scripted: { text: 'It is 12:00 in UTC.', usage: { input_tokens: 20, output_tokens: 8, cache_read_tokens: 100 } },
  },
  {
    fake: { text: 'You are welcome.', usage: { input: 5, output: 4, cacheRead: 150 } },
    scripted: { text: 'You are welcome.', usage: { input_tokens: 5, output_tokens: 4, cache_read_tokens: 150 } },
  },
];

async function twoTurns(provider: Provider, store: CapturingStore): Promise<void> {
  const agent = new Agent({ provider, tools: clockTools() }, { store });
  await agent.addSystemMessage('You are a clock.', 'replace');
  await agent.submitUserMessage('What time is it in UTC?');
  expect((await agent.runStep()).stopReason).toBe('end_turn');
  await agent.submitUserMessage('Thanks!');
  expect((await agent.runStep()).stopReason).toBe('end_turn');
}

/** Records without what legitimately differs between providers: ids, timestamps, provider, model, raw stop reason. */
function comparable(records: DiskMessage[]): unknown[] {
  return records.map((record) => {
    if (record.type !== 'message') return record;
    const message: Record<string, unknown> = { ...record.message };
    for (const field of ['provider', 'model', 'raw_stop_reason']) delete message[field];
    return { type: record.type, message };
  });
}

describe('Agent on AnthropicMessagesProvider over HTTP', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });
  const provider = (): AnthropicMessagesProvider =>
    new AnthropicMessagesProvider({ model: 'claude-test', apiKey: 'test-key', baseURL: server.anthropicBaseURL });

  it('persists the same messages the scripted provider would for a two-turn conversation with a tool call', async () => {
    for (const reply of replies) server.enqueue(reply.fake);
    const overHTTP = new CapturingStore();
    await twoTurns(provider(), overHTTP);

    const scripted = new CapturingStore();
    await twoTurns(new ScriptedProvider(replies.map((reply) => reply.scripted)), scripted);

    expect(overHTTP.records.map((record) => record.type === 'message' && record.message.role)).toEqual([
      'system', 'user', 'assistant', 'tool_result', 'assistant', 'user', 'assistant',
    ]);
    expect(comparable(overHTTP.records)).toEqual(comparable(scripted.records));
    expect(overHTTP.batches.map((batch) => batch.length)).toEqual(scripted.batches.map((batch) => batch.length));
    const assistants = overHTTP.records.flatMap((record) =>
      record.type === 'message' && record.message.role === 'assistant' ? [record.message] : [],
    );
    expect(assistants.map((message) => [message.provider, message.model, message.raw_stop_reason])).toEqual([
      ['anthropic', 'claude-test', 'tool_use'],
      ['anthropic', 'claude-test', 'end_turn'],
      ['anthropic', 'claude-test', 'end_turn'],
    ]);
    expect(server.requests).toHaveLength(3);
  });

  it('sends a resumed conversation back byte-for-byte as the Messages API expects', async () => {
    for (const reply of replies) server.enqueue(reply.fake);
    const store = new CapturingStore();
    await twoTurns(provider(), store);

    const loaded = await store.loadConversation();
    const resumed = new Agent({ provider: provider(), tools: clockTools() }, { store, conversation: loaded.conversation });
    await resumed.submitUserMessage('One more: Tokyo?');
    server.enqueue({ text: 'It is 21:00 in Tokyo.' });
    await resumed.runStep();

    const expected = {
      model: 'claude-test',
      max_tokens: 8192,
      system: [{ type: 'text', text: 'You are a clock.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'What time is it in UTC?' }] },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'I need the clock.', signature: 'sig-1==' },
            { type: 'text', text: 'Let me check the clock.' },
            { type: 'tool_use', id: 'toolu_01Clock', name: 'clock', input: { zone: 'UTC' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01Clock', content: '12:00 in UTC' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'It is 12:00 in UTC.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks!' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'You are welcome.' }] },
        { role: 'user', content: [{ type: 'text', text: 'One more: Tokyo?', cache_control: { type: 'ephemeral' } }] },
      ],
      tools: [{ name: 'clock', description: 'The current time', input_schema: clockSchema }],
      stream: true,
    };
    expect(server.requests).toHaveLength(4);
    expect(server.requests[3]?.rawBody).toBe(JSON.stringify(expected));
    // The tool-loop request of the first turn carried the same prefix: resuming changed nothing.
    expect(server.requests[1]?.body).toMatchObject({ messages: expected.messages.slice(0, 3) });
  });

  it('persists only the text that arrived, marked error, when the connection drops mid-message', async () => {
    server.enqueue({ text: 'The time is twelve o clock', dropAfterDeltas: 3 });
    const store = new CapturingStore();
    const agent = new Agent({ provider: provider(), tools: clockTools() }, { store });
    await agent.submitUserMessage('Time?');
    const result = await agent.runStep();
    expect(result).toMatchObject({ stopReason: 'error', incomplete: true, error: { name: 'ProviderError', retryable: true } });
    const last = store.records[store.records.length - 1];
    expect(last?.type === 'message' && last.message).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'The time is' }],
      stop_reason: 'error',
    });
  });

  it('ends the step as aborted, persisting the text so far, when the run is aborted mid-stream', async () => {
    server.enqueue({ text: 'Counting slowly', hang: true });
    const store = new CapturingStore();
    const agent = new Agent({ provider: provider(), tools: clockTools() }, { store });
    await agent.submitUserMessage('Count.');
    const controller = new AbortController();
    const result = await agent.runStep(
      (event) => {
        if (event.type === 'text-delta') controller.abort();
      },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ stopReason: 'aborted', incomplete: true });
    const last = store.records[store.records.length - 1];
    expect(last?.type === 'message' && last.message).toMatchObject({ content: [{ type: 'text', text: 'Counting' }], stop_reason: 'aborted' });
  });
});
