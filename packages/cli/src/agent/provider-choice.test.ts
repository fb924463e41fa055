import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { chooseProvider, describeProviderChoice, parseModelSpec } from './provider-choice.js';

describe('chooseProvider', () => {
  it("keeps the resumed session's model when it continues with the same provider", () => {
    expect(chooseProvider({ provider: 'openai' }, {}, { provider: 'openai', model: 'gpt-old' })).toEqual({
      provider: 'openai',
      model: 'gpt-old',
    });
  });

  it('does not carry a model over to another provider', () => {
    expect(chooseProvider({ provider: 'anthropic' }, {}, { provider: 'openai', model: 'gpt-old' })).toEqual({
      provider: 'anthropic',
    });
  });

  it('lets --model and PANTO_MODEL win over the resumed model', () => {
    const resumed = { provider: 'openai', model: 'gpt-old' };
    expect(chooseProvider({ provider: 'openai', model: 'flag' }, { PANTO_MODEL: 'env' }, resumed).model).toBe('flag');
    expect(chooseProvider({ provider: 'openai' }, { PANTO_MODEL: 'env' }, resumed).model).toBe('env');
  });

  it('picks the provider from --provider, PANTO_PROVIDER, then the API keys present', () => {
    expect(chooseProvider({ provider: 'offline' }, { PANTO_PROVIDER: 'openai' }, null).provider).toBe('offline');
    expect(chooseProvider({}, { PANTO_PROVIDER: 'openai', ANTHROPIC_API_KEY: 'k' }, null).provider).toBe('openai');
    expect(chooseProvider({}, { ANTHROPIC_API_KEY: 'k', OPENAI_API_KEY: 'k' }, null).provider).toBe('anthropic');
    expect(chooseProvider({}, { OPENAI_API_KEY: 'k' }, null).provider).toBe('openai');
    expect(chooseProvider({}, {}, null).provider).toBe('offline');
    expect(() => chooseProvider({}, { PANTO_PROVIDER: 'bard' }, null)).toThrow(UsageError);
  });
});

describe('parseModelSpec', () => {
  const current = { provider: 'openai' as const, model: 'gpt-a', baseURL: 'http://proxy/v1' };

  it('reads provider/model, keeping the rest of a model name with slashes', () => {
    expect(parseModelSpec('anthropic/claude-x', current)).toEqual({ provider: 'anthropic', model: 'claude-x' });
    expect(parseModelSpec('openai/meta-llama/Llama-3', current)).toEqual({
      provider: 'openai',
      model: 'meta-llama/Llama-3',
      baseURL: 'http://proxy/v1',
    });
  });

  it('reads a provider alone as its default model, and a model alone as the same provider', () => {
    expect(parseModelSpec('anthropic', current)).toEqual({ provider: 'anthropic' });
    expect(parseModelSpec('gpt-b', current)).toEqual({
      provider: 'openai',
      model: 'gpt-b',
      baseURL: 'http://proxy/v1',
    });
  });

  it('rejects an unknown provider before a slash', () => {
    expect(() => parseModelSpec('mistral/large', current)).toThrow('/model: unknown provider "mistral"');
  });

  it('switches to a Bedrock model (an inference profile with dots and a colon), keeping the --region', () => {
    const here = { provider: 'anthropic' as const, region: 'eu-west-1' };
    expect(parseModelSpec('bedrock/eu.anthropic.claude-sonnet-4-6', here)).toEqual({
      provider: 'bedrock',
      model: 'eu.anthropic.claude-sonnet-4-6',
      region: 'eu-west-1',
    });
    expect(parseModelSpec('bedrock/us.amazon.nova-pro-v1:0', here)).toMatchObject({ model: 'us.amazon.nova-pro-v1:0' });
    expect(describeProviderChoice({ provider: 'bedrock', model: 'eu.amazon.nova-pro-v1:0', region: 'eu-west-1' })).toBe(
      'bedrock/eu.amazon.nova-pro-v1:0 in eu-west-1',
    );
  });
});
