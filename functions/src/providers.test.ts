import { ProviderNotConfiguredError, UnknownProviderError } from '@panto/core';
import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from './config.js';
import { providerResolver } from './providers.js';

const config: ProviderConfig = {
  provider: 'anthropic',
  model: 'claude-default',
  apiKeys: { anthropic: 'sk-ant' },
  baseURLs: {},
  reason: 'test',
};

describe('providerResolver', () => {
  it("builds the server's default provider and model when the session chose none", () => {
    expect(providerResolver(config)({})).toMatchObject({ name: 'anthropic', model: 'claude-default' });
  });

  it("uses the session's provider with that provider's own default model", () => {
    expect(providerResolver(config)({ provider: 'offline' })).toMatchObject({ name: 'offline', model: 'offline-1' });
    expect(providerResolver(config)({ model: 'claude-other' })).toMatchObject({ name: 'anthropic', model: 'claude-other' });
  });

  it('refuses an unknown provider, and a keyed provider the server has no key for, with typed errors', () => {
    expect(() => providerResolver(config)({ provider: 'nonesuch' })).toThrow(UnknownProviderError);
    const keyless = { ...process.env };
    delete process.env.OPENAI_API_KEY;
    try {
      expect(() => providerResolver(config)({ provider: 'openai' })).toThrow(ProviderNotConfiguredError);
    } finally {
      process.env = keyless;
    }
  });
});
