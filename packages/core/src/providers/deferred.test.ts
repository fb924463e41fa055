import { describe, expect, it } from 'vitest';
import { ProviderNotConfiguredError, UnknownProviderError } from '../errors.js';
import { AnthropicMessagesProvider } from './anthropic-messages.js';
import { deferredProvider } from './deferred.js';
import { DEFAULT_MODELS } from './models.js';
import { OfflineProvider } from './offline.js';
import { OpenAIChatProvider } from './openai-chat.js';

describe('deferredProvider', () => {
  it('has its name and model at once, and builds the provider createProvider builds, once', async () => {
    const provider = deferredProvider({ provider: 'anthropic', apiKey: 'sk-ant', model: 'claude-x' });
    expect(provider).toMatchObject({ name: 'anthropic', model: 'claude-x' });
    const built = await provider.load();
    expect(built).toBeInstanceOf(AnthropicMessagesProvider);
    expect(built.model).toBe('claude-x');
    expect(await provider.load()).toBe(built);
    expect(deferredProvider({ provider: 'openai', apiKey: 'k' }).model).toBe(DEFAULT_MODELS.openai);
    expect(await deferredProvider({ provider: 'openai', apiKey: 'k' }).load()).toBeInstanceOf(OpenAIChatProvider);
  });

  it('throws at once what createProvider throws before building anything', () => {
    expect(() => deferredProvider({ provider: 'nonesuch' })).toThrow(UnknownProviderError);
    const env = { ...process.env };
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_AUTH_TOKEN;
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => deferredProvider({ provider: 'anthropic' })).toThrow(ProviderNotConfiguredError);
      expect(() => deferredProvider({ provider: 'openai' })).toThrow(/no API key: set OPENAI_API_KEY/);
      expect(deferredProvider({ provider: 'anthropic', baseURL: 'http://127.0.0.1:1' }).name).toBe('anthropic');
    } finally {
      process.env = env;
    }
  });

  it('streams what the provider it builds streams', async () => {
    const provider = deferredProvider({ provider: 'offline' });
    expect(await provider.load()).toBeInstanceOf(OfflineProvider);
    const events = [];
    const request = { messages: [{ role: 'user' as const, content: 'hello' }], tools: [] };
    for await (const event of provider.stream(request, { signal: new AbortController().signal })) events.push(event.type);
    expect(events.at(-1)).toBe('message-end');
  });
});
