import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ProviderRequest } from './provider.js';
import { FakeLLMServer } from '../testing/index.js';
import { OpenAIChatProvider, type OpenAIChatOptions } from './openai-chat.js';
import { toOpenAIMessages } from './openai-request.js';

// The mapping of every standard conversation is in the provider conformance suite
// (openai-chat.test.ts); this is the setting only Chat Completions servers differ on.
describe('OpenAIChatProvider request settings (bodies as the fake server received them)', () => {
  let server: FakeLLMServer;
  beforeEach(async () => {
    server = await FakeLLMServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  async function sent(request: ProviderRequest, options: Partial<OpenAIChatOptions> = {}): Promise<unknown> {
    server.enqueue({ text: 'ok' });
    const provider = new OpenAIChatProvider({
      model: 'gpt-test',
      apiKey: 'k',
      baseURL: server.openaiBaseURL,
      ...options,
    });
    for await (const event of provider.stream(request, { signal: new AbortController().signal })) {
      if (event.type === 'error') throw event.error;
    }
    return server.requests[server.requests.length - 1]?.body;
  }

  it('sends max_tokens instead for servers that only know it, and nothing when maxTokens is unset', async () => {
    const older = await sent({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, { maxTokens: 256, maxTokensParameter: 'max_tokens' });
    expect(older).toMatchObject({ max_tokens: 256 });
    expect(older).not.toHaveProperty('max_completion_tokens');
    const unset = await sent({ messages: [{ role: 'user', content: 'hi' }], tools: [] });
    expect(unset).not.toHaveProperty('max_tokens');
    expect(unset).not.toHaveProperty('max_completion_tokens');
    expect(unset).not.toHaveProperty('tools');
  });
});

describe('tool results with images', () => {
  it('puts a line per image in the tool message, since Chat Completions takes none there', () => {
    const wire = toOpenAIMessages([
      {
        role: 'tool_result',
        tool_call_id: 'c1',
        tool_name: 'shot',
        content: 'Here it is.',
        is_error: true,
        images: [{ type: 'image', media_type: 'image/png', data: 'A'.repeat(4096) }],
      },
    ]);
    expect(wire).toEqual([
      {
        role: 'tool',
        tool_call_id: 'c1',
        content: '[tool error] Here it is.\n[image/png image of 3 KB not shown: Chat Completions takes no images in tool results]',
      },
    ]);
  });
});
