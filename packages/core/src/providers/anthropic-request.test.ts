import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import type { ProviderRequest } from '../provider.js';
import { FakeLLMServer, usage } from '../testing/index.js';
import type { ToolDefinition } from '../tool.js';
import { AnthropicMessagesProvider, type AnthropicMessagesOptions } from './anthropic-messages.js';
import { compactionText } from './wire-common.js';

const clock: ToolDefinition = {
  name: 'clock',
  description: 'The current time',
  input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

function assistant(content: Extract<Message, { role: 'assistant' }>['content'], provider = 'anthropic'): Message {
  return { role: 'assistant', content, provider, model: 'm', usage: usage(1, 1), stop_reason: 'end_turn' };
}

function result(id: string, content: string, isError = false, name = 'read'): Message {
  return { role: 'tool_result', tool_call_id: id, tool_name: name, content, is_error: isError };
}

describe('AnthropicMessagesProvider request mapping (bodies as the fake server received them)', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  async function sent(request: ProviderRequest, options: Partial<AnthropicMessagesOptions> = {}): Promise<unknown> {
    server.enqueue({ text: 'ok' });
    // Caching off: these tests are about the mapping; caching has its own test below.
    const provider = new AnthropicMessagesProvider({
      model: 'claude-test',
      apiKey: 'k',
      baseURL: server.anthropicBaseURL,
      promptCaching: false,
      ...options,
    });
    for await (const event of provider.stream(request, { signal: new AbortController().signal })) {
      if (event.type === 'error') throw event.error;
    }
    return server.requests[server.requests.length - 1]?.body;
  }

  it('folds system messages into `system` and sends user text, tools, max_tokens and temperature', async () => {
    const body = await sent(
      {
        messages: [
          { role: 'system', content: 'You are terse.', mode: 'replace' },
          { role: 'user', content: 'What time is it?' },
          { role: 'system', content: 'Prefer tables.', mode: 'append' },
        ],
        tools: [clock],
      },
      { maxTokens: 1024, temperature: 0.5 },
    );
    expect(body).toStrictEqual({
      model: 'claude-test',
      max_tokens: 1024,
      system: 'You are terse.\n\nPrefer tables.',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'What time is it?' }] }],
      tools: [
        {
          name: 'clock',
          description: 'The current time',
          input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
        },
      ],
      temperature: 0.5,
      stream: true,
    });
  });

  it('asks for extended thinking with the budget on top of the default max_tokens, and sends no system or tools when there are none', async () => {
    const body = await sent({ messages: [{ role: 'user', content: 'Think.' }], tools: [] }, { thinking: { budgetTokens: 2048 } });
    expect(body).toStrictEqual({
      model: 'claude-test',
      max_tokens: 8192 + 2048,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Think.' }] }],
      thinking: { type: 'enabled', budget_tokens: 2048 },
      stream: true,
    });
  });

  it('merges the tool results of one turn into ONE user message of tool_result blocks, flagging error results', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'Read a, b and c' },
        assistant([
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'toolu_01', name: 'read', input: { path: 'a' } },
          { type: 'tool_call', id: 'toolu_02', name: 'read', input: { path: 'b' } },
          { type: 'tool_call', id: 'toolu_03', name: 'read', input: { path: 'c' } },
        ]),
        result('toolu_01', 'contents of a'),
        result('toolu_02', 'ENOENT: no such file', true),
        result('toolu_03', ''),
      ],
      tools: [],
    });
    expect((body as { messages: unknown }).messages).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'Read a, b and c' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_01', name: 'read', input: { path: 'a' } },
          { type: 'tool_use', id: 'toolu_02', name: 'read', input: { path: 'b' } },
          { type: 'tool_use', id: 'toolu_03', name: 'read', input: { path: 'c' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01', content: 'contents of a' },
          { type: 'tool_result', tool_use_id: 'toolu_02', content: 'ENOENT: no such file', is_error: true },
          { type: 'tool_result', tool_use_id: 'toolu_03' },
        ],
      },
    ]);
  });

  it('puts a prompt that follows tool results in the same user turn, after the results', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'Run it' },
        assistant([{ type: 'tool_call', id: 'toolu_01', name: 'bash', input: { command: 'sleep 100' } }]),
        result('toolu_01', 'Tool call aborted: the step was cancelled before this tool finished.', true, 'bash'),
        { role: 'user', content: 'Never mind.' },
      ],
      tools: [],
    });
    expect((body as { messages: unknown[] }).messages[2]).toStrictEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: 'Tool call aborted: the step was cancelled before this tool finished.', is_error: true },
        { type: 'text', text: 'Never mind.' },
      ],
    });
  });

  it('sends thinking back verbatim with its signature, and redacted thinking as it came', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: '27 * 453?' },
        assistant([
          { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' },
          { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix==' },
          { type: 'tool_call', id: 'toolu_01', name: 'calculator', input: { expression: '27 * 453' } },
        ]),
        result('toolu_01', '12231', false, 'calculator'),
      ],
      tools: [],
    });
    expect((body as { messages: unknown[] }).messages[1]).toStrictEqual({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' },
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix==' },
        { type: 'tool_use', id: 'toolu_01', name: 'calculator', input: { expression: '27 * 453' } },
      ],
    });
  });

  it('sends a compaction as a framed user message, in one user turn with the prompt after it', async () => {
    const body = await sent({
      messages: [
        { role: 'system', content: 'sys', mode: 'replace' },
        { role: 'compaction', summary: 'We fixed the parser.', provider: 'anthropic', model: 'm', usage: usage(1, 1), prior_usage: usage(9, 9) },
        { role: 'user', content: 'What next?' },
      ],
      tools: [],
    });
    expect(body).toMatchObject({ system: 'sys' });
    expect((body as { messages: unknown }).messages).toStrictEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: compactionText('We fixed the parser.') },
          { type: 'text', text: 'What next?' },
        ],
      },
    ]);
    expect(compactionText('We fixed the parser.')).toMatch(/^\[Summary of the earlier conversation.*\]\n\nWe fixed the parser\.$/);
  });

  it('sends a session written by the OpenAI provider: its ids, no unsigned reasoning, no empty messages', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'Weather in Paris?', provider: 'openai', model: 'gpt-x' },
        assistant(
          [
            { type: 'thinking', thinking: 'reasoning from a compatible server', signature: '' },
            { type: 'tool_call', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
            // Ids some OpenAI-compatible servers write do not fit Anthropic's pattern.
            { type: 'tool_call', id: 'functions.get_time:1', name: 'get_time', input: {} },
          ],
          'openai',
        ),
        result('call_DdmO9pD3xa9XTPNJ32zg2hcA', '18°C', false, 'get_weather'),
        result('functions.get_time:1', '14:00', false, 'get_time'),
        assistant([{ type: 'text', text: 'It is 18°C at 14:00.' }], 'openai'),
        { role: 'user', content: 'And tomorrow?' },
        // A cut-short reply that kept no text, then a blank one: neither is sendable.
        assistant([], 'openai'),
        assistant([{ type: 'text', text: '  ' }], 'openai'),
        { role: 'user', content: 'Hello?' },
      ],
      tools: [],
    });
    const messages = (body as { messages: { role: string; content: { type: string; id?: string; tool_use_id?: string }[] }[] }).messages;
    const fitted = messages[1]?.content[1]?.id;
    expect(fitted).toMatch(/^functions_get_time_1_[0-9a-f]{8}$/);
    expect(messages).toStrictEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', name: 'get_weather', input: { location: 'Paris' } },
          { type: 'tool_use', id: fitted, name: 'get_time', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_DdmO9pD3xa9XTPNJ32zg2hcA', content: '18°C' },
          { type: 'tool_result', tool_use_id: fitted, content: '14:00' },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'It is 18°C at 14:00.' }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'And tomorrow?' },
          { type: 'text', text: 'Hello?' },
        ],
      },
    ]);
  });
  it('marks cache breakpoints on the system prompt and the newest message by default', async () => {
    const body = await sent(
      {
        messages: [
          { role: 'system', content: 'You are terse.', mode: 'replace' },
          { role: 'user', content: 'Read a.txt' },
          assistant([
            { type: 'thinking', thinking: 't', signature: 's' },
            { type: 'tool_call', id: 'c1', name: 'read', input: { path: 'a.txt' } },
          ]),
          result('c1', 'hello'),
        ],
        tools: [clock],
      },
      { promptCaching: true },
    );
    expect(body).toMatchObject({
      system: [{ type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Read a.txt' }] },
        { role: 'assistant', content: [{ type: 'thinking' }, { type: 'tool_use' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'hello', cache_control: { type: 'ephemeral' } }] },
      ],
    });
    const messages = (body as { messages: { content: Record<string, unknown>[] }[] }).messages;
    expect(messages.slice(0, 2).flatMap((m) => m.content).some((block) => 'cache_control' in block)).toBe(false);
  });
});
