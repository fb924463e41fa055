import { ModelAccessDeniedError, ProviderError } from '@panto/core';
import { describe, expect, it } from 'vitest';
import { providerEndpoint, providerErrorHint } from './provider-hints.js';

const unreachable = (provider: string) => new ProviderError(provider, `${provider}: could not reach the API: Connection error.`, { retryable: true });
const status = (provider: string, code: number, type = 'error') => new ProviderError(provider, `${provider} ${code} ${type}: no`, { status: code, type });

describe('providerEndpoint', () => {
  it('is --base-url, else the SDK variable, else the vendor default — and says which', () => {
    expect(providerEndpoint({ provider: 'openai', baseURL: 'http://a/v1' }, { OPENAI_BASE_URL: 'http://b/v1' })).toEqual({
      url: 'http://a/v1',
      source: '--base-url',
      isDefault: false,
    });
    expect(providerEndpoint({ provider: 'openai' }, { OPENAI_BASE_URL: 'http://b/v1' })).toMatchObject({ url: 'http://b/v1', source: 'OPENAI_BASE_URL' });
    expect(providerEndpoint({ provider: 'anthropic' }, {})).toMatchObject({ url: 'https://api.anthropic.com', isDefault: true });
    expect(providerEndpoint({ provider: 'bedrock', region: 'eu-west-3' }, {})).toMatchObject({ url: 'https://bedrock-runtime.eu-west-3.amazonaws.com' });
    expect(providerEndpoint({ provider: 'bedrock' }, { AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://vpce' })).toMatchObject({
      source: 'AWS_ENDPOINT_URL_BEDROCK_RUNTIME',
    });
    expect(providerEndpoint({ provider: 'offline' }, {})).toBeUndefined();
  });
});

describe('providerErrorHint', () => {
  it('names the URL and where it came from when the connection failed', () => {
    expect(providerErrorHint(unreachable('openai'), { provider: 'openai' }, { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toBe(
      'panto called http://127.0.0.1:9/v1 (from OPENAI_BASE_URL): is a server listening there, and is the URL right?',
    );
    expect(providerErrorHint(unreachable('anthropic'), { provider: 'anthropic' }, {})).toBe(
      "panto called https://api.anthropic.com (from the default; ANTHROPIC_BASE_URL or --base-url set another): check this machine's network",
    );
  });

  it('names the variable a refused key came from (and for Bedrock, the AWS credentials)', () => {
    expect(providerErrorHint(status('anthropic', 401), { provider: 'anthropic' }, { ANTHROPIC_API_KEY: 'k' })).toBe('the key is ANTHROPIC_API_KEY: check it');
    expect(providerErrorHint(status('openai', 401), { provider: 'openai' }, {})).toBe('the key is OPENAI_API_KEY: check it');
    expect(providerErrorHint(status('bedrock', 403, 'UnrecognizedClientException'), { provider: 'bedrock' }, { AWS_PROFILE: 'work' })).toBe(
      "the credentials are AWS_PROFILE=work's (aws sso login, aws configure): check it",
    );
  });

  it('names the URL and the model for a 404', () => {
    expect(providerErrorHint(status('openai', 404), { provider: 'openai', model: 'gpt-x', baseURL: 'http://h:1' }, {})).toBe(
      'panto called http://h:1 (from --base-url) for the model gpt-x: check both (--base-url, --model)',
    );
  });

  it('adds nothing where there is nothing to check: a 429, model access, a stream dropped, another error', () => {
    expect(providerErrorHint(status('openai', 429, 'rate_limit_exceeded'), { provider: 'openai' }, {})).toBeUndefined();
    expect(providerErrorHint(new ModelAccessDeniedError('bedrock', 'm', 'us-east-1'), { provider: 'bedrock' }, {})).toBeUndefined();
    expect(providerErrorHint(new ProviderError('openai', 'dropped', { type: 'stream_dropped', retryable: true }), { provider: 'openai' }, {})).toBeUndefined();
    expect(providerErrorHint(new Error('kaboom'), { provider: 'openai' }, {})).toBeUndefined();
    expect(providerErrorHint(undefined, { provider: 'openai' }, {})).toBeUndefined();
  });
});
