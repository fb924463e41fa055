import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import type { ProviderRequest } from '../provider.js';
import { FakeLLMServer, usage } from '../testing/index.js';
import type { ToolDefinition } from '../tool.js';
import { OpenAIChatProvider, type OpenAIChatOptions } from './openai-chat.js';
import { compactionText } from './wire-common.js';

const clock: ToolDefinition = {
  name: 'clock',
  description: 'The current time',
  input_schema: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
};

function assistant(content: Extract<Message, { role: 'assistant' }>['content'], provider = 'openai'): Message {
  return { role: 'assistant', content, provider, model: 'm', usage: usage(1, 1), stop_reason: 'end_turn' };
}

function result(id: string, content: string, isError = false, name = 'read'): Message {
  return { role: 'tool_result', tool_call_id: id, tool_name: name, content, is_error: isError };
}

describe('OpenAIChatProvider request mapping (bodies as the fake server received them)', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  async function sent(request: ProviderRequest, options: Partial<OpenAIChatOptions> = {}): Promise<unknown> {
    server.enqueue({ text: 'ok' });
    const provider = new OpenAIChatProvider({ model: 'gpt-test', apiKey: 'k', baseURL: server.openaiBaseURL, ...options });
    for await (const event of provider.stream(request, { signal: new AbortController().signal })) {
      if (event.type === 'error') throw event.error;
    }
    return server.requests[server.requests.length - 1]?.body;
  }

  it('sends the folded system prompt as the first message, then user text, tools, max_completion_tokens, temperature, and asks for usage', async () => {
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
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'You are terse.\n\nPrefer tables.' },
        { role: 'user', content: 'What time is it?' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'clock',
            description: 'The current time',
            parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] },
          },
        },
      ],
      max_completion_tokens: 1024,
      temperature: 0.5,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it('sends max_tokens instead for servers that only know it, and nothing when maxTokens is unset', async () => {
    const older = await sent({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, { maxTokens: 256, maxTokensParameter: 'max_tokens' });
    expect(older).toMatchObject({ max_tokens: 256 });
    expect(older).not.toHaveProperty('max_completion_tokens');
    const unset = await sent({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(unset).not.toHaveProperty('max_tokens');
    expect(unset).not.toHaveProperty('max_completion_tokens');
    expect(unset).not.toHaveProperty('tools');
  });

  it('sends tool calls with JSON-text arguments and one tool message per result, error results prefixed', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'Read a and b' },
        assistant([
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'call_1', name: 'read', input: { path: 'a', lines: [1, 2] } },
          { type: 'tool_call', id: 'call_2', name: 'read', input: {} },
        ]),
        result('call_1', 'contents of a'),
        result('call_2', 'ENOENT: no such file', true),
      ],
      tools: [],
    });
    expect((body as { messages: unknown }).messages).toStrictEqual([
      { role: 'user', content: 'Read a and b' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a","lines":[1,2]}' } },
          { id: 'call_2', type: 'function', function: { name: 'read', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents of a' },
      { role: 'tool', tool_call_id: 'call_2', content: '[tool error] ENOENT: no such file' },
    ]);
  });

  it('sends a compaction as a framed user message, merged with the prompt after it', async () => {
    const body = await sent({
      messages: [
        { role: 'system', content: 'sys', mode: 'replace' },
        { role: 'compaction', summary: 'We fixed the parser.', provider: 'openai', model: 'm', usage: usage(1, 1), prior_usage: usage(9, 9) },
        { role: 'user', content: 'What next?' },
      ],
      tools: [],
    });
    expect((body as { messages: unknown }).messages).toStrictEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: `${compactionText('We fixed the parser.')}\n\nWhat next?` },
    ]);
  });

  it('sends a session written by the Anthropic provider: thinking dropped, its ids kept, over-long ids fitted the same way for call and result', async () => {
    const longId = 'toolu_01VeryLongIdentifierFromSomeGatewayThatExceedsForty';
    const body = await sent({
      messages: [
        { role: 'user', content: '27 * 453?', provider: 'anthropic', model: 'claude-x' },
        assistant(
          [
            { type: 'thinking', thinking: 'Use the calculator.', signature: 'EqQBCgIYAhIM1gbcDa9G==' },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix==' },
            { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'calculator', input: { expression: '27 * 453' } },
            { type: 'tool_call', id: longId, name: 'calculator', input: { expression: '1 + 1' } },
          ],
          'anthropic',
        ),
        result('toolu_01A09q90qw90lq917835lq9', '12231', false, 'calculator'),
        result(longId, '2', false, 'calculator'),
        // Only thinking, nothing the wire can carry: skipped.
        assistant([{ type: 'thinking', thinking: 'Nothing to say.', signature: 'sig==' }], 'anthropic'),
        { role: 'user', content: 'Thanks.' },
      ],
      tools: [],
    });
    const messages = (body as { messages: { tool_calls?: { id: string }[] }[] }).messages;
    const fitted = messages[1]?.tool_calls?.[1]?.id;
    expect(fitted).toHaveLength(40);
    expect(fitted).toMatch(/^toolu_01VeryLongIdentifierFromS_[0-9a-f]{8}$/);
    expect(messages).toStrictEqual([
      { role: 'user', content: '27 * 453?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'calculator', arguments: '{"expression":"27 * 453"}' } },
          { id: fitted, type: 'function', function: { name: 'calculator', arguments: '{"expression":"1 + 1"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '12231' },
      { role: 'tool', tool_call_id: fitted, content: '2' },
      { role: 'user', content: 'Thanks.' },
    ]);
  });

  it('merges consecutive user messages and consecutive assistant messages, for servers that insist roles alternate', async () => {
    const body = await sent({
      messages: [
        { role: 'user', content: 'First.' },
        { role: 'user', content: 'Second.' },
        assistant([{ type: 'text', text: 'Partial answ' }]),
        assistant([{ type: 'text', text: 'A full answer.' }]),
        { role: 'user', content: 'Third.' },
      ],
      tools: [],
    });
    expect((body as { messages: unknown }).messages).toStrictEqual([
      { role: 'user', content: 'First.\n\nSecond.' },
      { role: 'assistant', content: 'Partial answ\n\nA full answer.' },
      { role: 'user', content: 'Third.' },
    ]);
  });
});
