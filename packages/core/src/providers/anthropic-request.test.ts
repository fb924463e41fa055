import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Message } from '../messages.js';
import type { ProviderRequest } from './provider.js';
import { FakeLLMServer, usage } from '../testing/index.js';
import type { ToolDefinition } from '../tool.js';
import { AnthropicMessagesProvider, type AnthropicMessagesOptions } from './anthropic-messages.js';
import { toAnthropicMessages } from './anthropic-request.js';

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

// The mapping of every standard conversation is in the provider conformance suite
// (anthropic-messages.test.ts); these are the settings only the Messages API has.
describe('AnthropicMessagesProvider request settings (bodies as the fake server received them)', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  async function sent(request: ProviderRequest, options: Partial<AnthropicMessagesOptions> = {}): Promise<unknown> {
    server.enqueue({ text: 'ok' });
    // Caching off unless a test turns it on: the conformance suite covers the default.
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

  it('sends the folded system prompt as a plain string, and no breakpoints, with promptCaching off', async () => {
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
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'hello', cache_control: { type: 'ephemeral' } }],
        },
      ],
    });
    const messages = (body as { messages: { content: Record<string, unknown>[] }[] }).messages;
    expect(
      messages
        .slice(0, 2)
        .flatMap((m) => m.content)
        .some((block) => 'cache_control' in block),
    ).toBe(false);
  });
});

describe('tool results with images', () => {
  const withImages: Message = {
    role: 'tool_result',
    tool_call_id: 'c1',
    tool_name: 'shot',
    content: 'Here it is.',
    is_error: false,
    images: [
      { type: 'image', media_type: 'image/png', data: 'iVBORw0KGgo=' },
      { type: 'image', media_type: 'image/bmp', data: 'Qk0=' },
    ],
  };

  it('sends PNG as an image block after the text, and says in the text which image types the wire refuses', () => {
    expect(
      toAnthropicMessages([{ role: 'user', content: 'go' }, assistant([{ type: 'tool_call', id: 'c1', name: 'shot', input: {} }]), withImages])[2],
    ).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'c1',
          content: [
            {
              type: 'text',
              text: 'Here it is.\n[image/bmp image of 0 KB not shown: the Messages API takes only JPEG, PNG, GIF and WebP]',
            },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    });
  });

  it('sends an image-only result without an empty text block', () => {
    const imageOnly: Message = {
      ...withImages,
      content: '',
      images: [{ type: 'image', media_type: 'image/png', data: 'AAAA' }],
    } as Message;
    const wire = toAnthropicMessages([imageOnly]);
    expect(wire[0]!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'c1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
      },
    ]);
  });
});
