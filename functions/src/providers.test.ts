import { describe, expect, it } from 'vitest';
import type { ProviderSettings } from './config.js';
import { providerFactory } from './providers.js';

const settings: ProviderSettings = {
  provider: 'anthropic',
  model: 'claude-default',
  apiKeys: { anthropic: 'sk-ant' },
  baseURLs: {},
  reason: 'test',
};

describe('providerFactory', () => {
  it("builds the server's default provider and model when the session chose none", () => {
    expect(providerFactory(settings)({})).toMatchObject({ name: 'anthropic', model: 'claude-default' });
  });

  it("uses the session's provider with that provider's own default model", () => {
    expect(providerFactory(settings)({ provider: 'offline' })).toMatchObject({ name: 'offline', model: 'offline-1' });
    expect(providerFactory(settings)({ model: 'claude-other' })).toMatchObject({ name: 'anthropic', model: 'claude-other' });
  });

  it('refuses an unknown provider and a keyed provider the server has no key for', () => {
    expect(() => providerFactory(settings)({ provider: 'nonesuch' })).toThrow(/unknown provider/);
    expect(() => providerFactory(settings)({ provider: 'openai' })).toThrow(/not configured/);
  });
});
