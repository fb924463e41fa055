import {
  BedrockConverseProvider,
  type DeferredProvider,
  DEFAULT_MODELS,
  ProviderNotConfiguredError,
  UnknownProviderError,
  UnsupportedModelError,
} from '@panto/core';
import { FakeBedrockServer, FakeLLMServer } from '@panto/core/testing';
import { describe, expect, it, vi } from 'vitest';
import type { ProviderConfig } from '../config.js';
import { OUTPUT_TOKEN_CAP, providerResolver } from './provider-resolver.js';

const config: ProviderConfig = {
  provider: 'anthropic',
  model: 'claude-default',
  apiKeys: { anthropic: 'sk-ant' },
  baseURLs: {},
  extraModels: [],
  reason: 'test',
};

describe('providerResolver', () => {
  it("builds the server's default provider and model when the session chose none", () => {
    expect(providerResolver(config)({})).toMatchObject({ name: 'anthropic', model: 'claude-default' });
  });

  it('gives every turn of a process the same provider for the same provider and model (its SDK client is built once), and keeps only the last few', () => {
    const providers = providerResolver({ ...config, baseURLs: { openai: 'http://127.0.0.1:9/v1' }, apiKeys: { ...config.apiKeys, openai: 'sk' } });
    const first = providers({});
    expect(providers({})).toBe(first);
    expect(providers({ provider: 'anthropic', model: 'claude-default' })).toBe(first);
    expect(providers({ model: 'claude-other' })).not.toBe(first);
    // A base URL's server names any model: what is kept is bounded, the least recently used dropped.
    for (let i = 0; i < 40; i++) providers({ provider: 'openai', model: `m-${i}` });
    expect(providers({})).not.toBe(first);
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

  it("checks a client's choice of model against the catalog: unknown and retired models are refused by name", () => {
    const resolve = providerResolver(config);
    expect(resolve({ provider: 'offline', model: 'offline-1' }, { check: true })).toMatchObject({ model: 'offline-1' });
    expect(resolve({ provider: 'anthropic', model: DEFAULT_MODELS.anthropic }, { check: true })).toMatchObject({ name: 'anthropic' });
    expect(() => resolve({ provider: 'offline', model: 'claude-opus' }, { check: true })).toThrow(UnsupportedModelError);
    expect(() => resolve({ model: 'claude-sonnet-4-5' }, { check: true })).toThrow(/retired "claude-sonnet-4-5"/);
    // The server's own default is the operator's (checked at start), not the client's choice.
    expect(providerResolver({ ...config, provider: 'offline', model: 'offline-test' })({}, { check: true })).toMatchObject({ model: 'offline-test' });
    // Turns on an existing session are not judged again: the session keeps what it chose.
    expect(resolve({ provider: 'offline', model: 'claude-opus' })).toMatchObject({ model: 'claude-opus' });
  });

  it('accepts any model for a provider with a base URL (a compatible server of your own), and the extra models', () => {
    const own = providerResolver({ ...config, baseURLs: { openai: 'http://127.0.0.1:1/v1' }, apiKeys: { openai: 'k' } });
    expect(own({ provider: 'openai', model: 'meta-llama/Llama-3.3-70B' }, { check: true })).toMatchObject({ model: 'meta-llama/Llama-3.3-70B' });
    const extra = providerResolver({ ...config, extraModels: ['anthropic/claude-opus-9'] });
    expect(extra({ model: 'claude-opus-9' }, { check: true })).toMatchObject({ model: 'claude-opus-9' });
  });

  it('builds Bedrock with the region and endpoint of the configuration, no key, and refuses it where the server has no Bedrock', async () => {
    const onAWS: ProviderConfig = { ...config, bedrock: { region: 'eu-west-1', endpoint: 'http://127.0.0.1:9' } };
    const provider = providerResolver(onAWS)({ provider: 'bedrock' });
    // Its code is loaded at its first call (a cold start evaluates none of it); `load` builds it now.
    expect(await (provider as DeferredProvider).load()).toBeInstanceOf(BedrockConverseProvider);
    expect(provider.model).toBe(DEFAULT_MODELS.bedrock);
    expect(() => providerResolver(config)({ provider: 'bedrock' })).toThrow(ProviderNotConfiguredError);
    expect(() => providerResolver(config)({ provider: 'bedrock' })).toThrow(/does not call Amazon Bedrock/);
  });

  it('lets a client choose only the Bedrock models the deployment allows, when it lists them', () => {
    const allowed = ['eu.anthropic.claude-sonnet-4-6', 'eu.amazon.nova-pro-v1:0'];
    const resolve = providerResolver({ ...config, bedrock: { region: 'eu-west-1', models: allowed } });
    expect(resolve({ provider: 'bedrock', model: 'eu.amazon.nova-pro-v1:0' }, { check: true }).model).toBe('eu.amazon.nova-pro-v1:0');
    expect(() => resolve({ provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' }, { check: true })).toThrow(UnsupportedModelError);
    expect(() => resolve({ provider: 'bedrock', model: 'global.anthropic.claude-sonnet-4-6' }, { check: true })).toThrow(
      'unknown bedrock model "global.anthropic.claude-sonnet-4-6": expected one of eu.anthropic.claude-sonnet-4-6, eu.amazon.nova-pro-v1:0',
    );
  });

  it('sends every provider the output cap the usage ledger holds for: max_tokens, max_completion_tokens, Bedrock maxTokens', async () => {
    const [fake, bedrock] = await Promise.all([FakeLLMServer.start(), FakeBedrockServer.start()]);
    vi.stubEnv('AWS_ACCESS_KEY_ID', bedrock.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', bedrock.credentials.secretAccessKey);
    try {
      const resolve = providerResolver({
        ...config,
        apiKeys: { anthropic: 'k', openai: 'k' },
        baseURLs: { anthropic: fake.anthropicBaseURL, openai: fake.openaiBaseURL },
        bedrock: { region: bedrock.region, endpoint: bedrock.url },
      });
      fake.enqueue({ text: 'one' }, { text: 'two' });
      bedrock.enqueue({ text: 'three' });
      for (const name of ['anthropic', 'openai', 'bedrock']) {
        const events = resolve({ provider: name }).stream({ messages: [{ role: 'user', content: 'hi' }], tools: [] }, { signal: new AbortController().signal });
        let last: { type: string } | undefined;
        for await (const event of events) last = event;
        expect(last?.type, name).toBe('message-end');
      }
      expect(fake.requests[0]?.body).toMatchObject({ max_tokens: OUTPUT_TOKEN_CAP });
      expect(fake.requests[1]?.body).toMatchObject({ max_completion_tokens: OUTPUT_TOKEN_CAP });
      expect(bedrock.requests[0]?.body).toMatchObject({ inferenceConfig: { maxTokens: OUTPUT_TOKEN_CAP } });
    } finally {
      vi.unstubAllEnvs();
      await Promise.all([fake.close(), bedrock.close()]);
    }
  });
});
