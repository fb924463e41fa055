import { describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../config.js';
import { offeredModels } from './offered-models.js';

const base: ProviderConfig = { provider: 'offline', apiKeys: {}, baseURLs: {}, extraModels: [], reason: 'test' };

describe('offeredModels', () => {
  it('offers only offline when no provider has a key', () => {
    const offered = offeredModels(base, '2026-12-01');
    expect(offered.default).toEqual({ provider: 'offline', model: 'offline-1' });
    expect(offered.providers.map((provider) => provider.name)).toEqual(['offline']);
    expect(offered.providers[0]).toEqual({ name: 'offline', default_model: 'offline-1', models: [{ id: 'offline-1', status: 'active' }], any_model: false });
  });

  it('lists a keyed provider first when it is the default, without retired models', () => {
    const offered = offeredModels({ ...base, provider: 'anthropic', apiKeys: { anthropic: 'k' } }, '2026-12-01');
    expect(offered.providers.map((provider) => provider.name)).toEqual(['anthropic', 'offline']);
    const ids = offered.providers[0]?.models.map((model) => model.id) ?? [];
    expect(ids).toContain('claude-sonnet-5-5');
    expect(ids).not.toContain('claude-sonnet-4-5');
    expect(offered.default).toEqual({ provider: 'anthropic', model: 'claude-sonnet-5-5' });
  });

  it('leaves out a model on and after its retirement day', () => {
    const before = offeredModels({ ...base, apiKeys: { openai: 'k' } }, '2026-12-10');
    const after = offeredModels({ ...base, apiKeys: { openai: 'k' } }, '2026-12-11');
    const ids = (offered: typeof before): string[] => offered.providers.find((provider) => provider.name === 'openai')?.models.map((model) => model.id) ?? [];
    expect(ids(before)).toContain('gpt-5');
    expect(ids(after)).not.toContain('gpt-5');
  });

  it('adds the configured default model and extra models the catalog does not list, and says when any name goes', () => {
    const offered = offeredModels(
      {
        ...base,
        provider: 'anthropic',
        model: 'claude-e2e',
        apiKeys: { anthropic: 'k' },
        baseURLs: { anthropic: 'http://127.0.0.1:1' },
        extraModels: ['anthropic/claude-next', 'openai/gpt-next'],
      },
      '2026-12-01',
    );
    const anthropic = offered.providers[0];
    expect(anthropic).toMatchObject({ name: 'anthropic', default_model: 'claude-e2e', any_model: true });
    expect(anthropic?.models).toContainEqual({ id: 'claude-e2e', status: null });
    expect(anthropic?.models).toContainEqual({ id: 'claude-next', status: null });
    expect(anthropic?.models.map((model) => model.id)).not.toContain('gpt-next');
    expect(offered.default).toEqual({ provider: 'anthropic', model: 'claude-e2e' });
  });

  it('offers Bedrock where the server can call it, and exactly the models the deployment allows when it lists them', () => {
    expect(offeredModels({ ...base, bedrock: {} }, '2026-12-01').providers.map((provider) => provider.name)).toEqual(['offline', 'bedrock']);
    const onAWS: ProviderConfig = { ...base, provider: 'bedrock', bedrock: { models: ['global.anthropic.claude-sonnet-4-6', 'eu.meta.custom-v1:0'] } };
    const [bedrock] = offeredModels(onAWS, '2026-12-01').providers;
    expect(bedrock).toEqual({
      name: 'bedrock',
      default_model: 'global.anthropic.claude-sonnet-4-6',
      models: [
        { id: 'global.anthropic.claude-sonnet-4-6', status: 'active' },
        { id: 'eu.meta.custom-v1:0', status: null },
      ],
      any_model: false,
    });
  });
});
