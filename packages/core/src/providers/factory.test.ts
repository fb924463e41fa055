import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeLLMServer } from '../testing/index.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';
import { ProviderNotConfiguredError, UnknownProviderError } from '../errors.js';
import { createProvider } from './factory.js';
import { DEFAULT_MODELS } from './models.js';
import { defaultProviderName } from './names.js';
import { OfflineProvider } from './offline.js';
import { OpenAIChatProvider } from './openai-chat.js';

describe('createProvider', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('builds each provider by name, with its default model', () => {
    const anthropic = createProvider({ provider: 'anthropic', apiKey: 'k' });
    const openai = createProvider({ provider: 'openai', apiKey: 'k' });
    const offline = createProvider({ provider: 'offline' });
    expect(anthropic).toBeInstanceOf(AnthropicMessagesProvider);
    expect(openai).toBeInstanceOf(OpenAIChatProvider);
    expect(offline).toBeInstanceOf(OfflineProvider);
    expect([anthropic, openai, offline].map((provider) => [provider.name, provider.model])).toEqual([
      ['anthropic', DEFAULT_MODELS.anthropic],
      ['openai', DEFAULT_MODELS.openai],
      ['offline', DEFAULT_MODELS.offline],
    ]);
  });

  it('uses the model it is given', () => {
    expect(createProvider({ provider: 'openai', apiKey: 'k', model: 'llama3.1' }).model).toBe('llama3.1');
  });

  it('refuses to build an OpenAI provider without any API key, naming OPENAI_API_KEY', () => {
    vi.stubEnv('OPENAI_API_KEY', undefined);
    expect(() => createProvider({ provider: 'openai' })).toThrow(ProviderNotConfiguredError);
    expect(() => createProvider({ provider: 'openai' })).toThrow(/OPENAI_API_KEY/);
  });

  it('refuses to build an Anthropic provider without any API key at once, not at its first call', () => {
    vi.stubEnv('ANTHROPIC_API_KEY', undefined);
    vi.stubEnv('ANTHROPIC_AUTH_TOKEN', undefined);
    expect(() => createProvider({ provider: 'anthropic' })).toThrow(ProviderNotConfiguredError);
    expect(() => createProvider({ provider: 'anthropic' })).toThrow(/ANTHROPIC_API_KEY/);
    expect(createProvider({ provider: 'anthropic', baseURL: 'http://127.0.0.1:9' }).name).toBe('anthropic');
    vi.stubEnv('ANTHROPIC_API_KEY', 'from-env');
    expect(createProvider({ provider: 'anthropic' }).name).toBe('anthropic');
  });

  it('throws UnknownProviderError listing the valid names for an unknown name', () => {
    expect(() => createProvider({ provider: 'gemini' })).toThrow(UnknownProviderError);
    expect(() => createProvider({ provider: 'gemini' })).toThrow('unknown provider "gemini": expected one of anthropic, openai, bedrock, offline');
  });

  it('passes the connection options through: base URL, key, max tokens, temperature', async () => {
    const server = await FakeLLMServer.start();
    try {
      server.enqueue({ text: 'a' }, { text: 'b' });
      const signal = new AbortController().signal;
      const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
      for (const name of ['anthropic', 'openai'] as const) {
        const baseURL = name === 'anthropic' ? server.anthropicBaseURL : server.openaiBaseURL;
        const provider = createProvider({
          provider: name,
          model: 'm',
          apiKey: `key-${name}`,
          baseURL,
          maxTokens: 77,
          temperature: 0.25,
          maxRetries: 0,
        });
        for await (const event of provider.stream(request, { signal })) if (event.type === 'error') throw event.error;
      }
      expect(server.requests[0]?.body).toMatchObject({ model: 'm', max_tokens: 77, temperature: 0.25 });
      expect(server.requests[1]?.body).toMatchObject({ model: 'm', max_completion_tokens: 77, temperature: 0.25 });
      expect(JSON.stringify(server.requests[0]?.headers)).toContain('key-anthropic');
      expect(server.requests[1]?.headers.authorization).toBe('Bearer key-openai');
    } finally {
      await server.close();
    }
  });

  it("reads the SDKs' environment variables for key and base URL", async () => {
    const server = await FakeLLMServer.start();
    try {
      vi.stubEnv('ANTHROPIC_API_KEY', 'env-anthropic-key');
      vi.stubEnv('ANTHROPIC_BASE_URL', server.anthropicBaseURL);
      vi.stubEnv('OPENAI_API_KEY', 'env-openai-key');
      vi.stubEnv('OPENAI_BASE_URL', server.openaiBaseURL);
      server.enqueue({ text: 'a' }, { text: 'b' });
      const signal = new AbortController().signal;
      const request = { messages: [{ role: 'user' as const, content: 'hi' }], tools: [] };
      for (const name of ['anthropic', 'openai'] as const) {
        for await (const event of createProvider({ provider: name }).stream(request, { signal })) if (event.type === 'error') throw event.error;
      }
      expect(server.requests.map((request) => request.path)).toEqual(['/v1/messages', '/v1/chat/completions']);
      expect(JSON.stringify(server.requests[0]?.headers)).toContain('env-anthropic-key');
      expect(server.requests[1]?.headers.authorization).toBe('Bearer env-openai-key');
    } finally {
      await server.close();
    }
  });
});

describe('defaultProviderName', () => {
  it('prefers anthropic when ANTHROPIC_API_KEY is set', () => {
    expect(defaultProviderName({ ANTHROPIC_API_KEY: 'a', OPENAI_API_KEY: 'o' })).toBe('anthropic');
  });

  it('picks openai when only OPENAI_API_KEY is set', () => {
    expect(defaultProviderName({ OPENAI_API_KEY: 'o' })).toBe('openai');
  });

  it('falls back to offline when no key is set, blank keys counting as unset', () => {
    expect(defaultProviderName({})).toBe('offline');
    expect(defaultProviderName({ ANTHROPIC_API_KEY: '', OPENAI_API_KEY: '  ' })).toBe('offline');
  });
});
