import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, lambdaConfig, lambdaIssuer } from './config.js';
import { localSettings } from './local/settings.js';

describe('localSettings', () => {
  it('uses the offline provider, and says why, when no provider key is set', () => {
    const { config } = localSettings('/repo', {});
    expect(config.provider.provider).toBe('offline');
    expect(config.provider.reason).toBe('no provider API key is set');
    expect(config.provider.apiKeys).toEqual({});
  });

  it('picks the provider whose key is set, and PANTO_PROVIDER / PANTO_MODEL over that', () => {
    expect(localSettings('/repo', { ANTHROPIC_API_KEY: 'k' }).config.provider).toMatchObject({
      provider: 'anthropic',
      apiKeys: { anthropic: 'k' },
    });
    expect(localSettings('/repo', { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' }).config.provider).toMatchObject({
      provider: 'openai',
      baseURLs: { openai: 'http://127.0.0.1:1/v1' },
    });
    const chosen = localSettings('/repo', { ANTHROPIC_API_KEY: 'k', PANTO_PROVIDER: 'openai', PANTO_MODEL: 'gpt-x' }).config.provider;
    expect(chosen).toMatchObject({ provider: 'openai', model: 'gpt-x', reason: 'PANTO_PROVIDER' });
  });

  it('keeps data under .panto-local of the root, on port 3000, unless told otherwise', () => {
    expect(localSettings('/repo', {})).toMatchObject({ dataDir: '/repo/.panto-local', port: 3000, defaultOwner: 'local-user' });
    expect(localSettings('/repo', { PANTO_DATA_DIR: '/tmp/x', PORT: '0', PANTO_OWNER: 'bob' })).toMatchObject({
      dataDir: '/tmp/x',
      port: 0,
      defaultOwner: 'bob',
    });
  });

  it('gives a lease that outlives the deadline, and refuses a deadline API Gateway would cut', () => {
    const { limits } = localSettings('/repo', { PANTO_DEADLINE_MS: '1000' }).config;
    expect(limits.deadlineMs).toBe(1000);
    expect(limits.leaseMs).toBeGreaterThan(limits.deadlineMs);
    expect(DEFAULT_LIMITS.deadlineMs).toBeLessThan(30_000);
    expect(() => localSettings('/repo', { PANTO_DEADLINE_MS: '30000' })).toThrow(/PANTO_DEADLINE_MS/);
    expect(() => localSettings('/repo', { PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('reads emulators that are already running from PANTO_DYNAMODB_ENDPOINT and PANTO_S3_ENDPOINT', () => {
    const settings = localSettings('/repo', { PANTO_DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', PANTO_S3_ENDPOINT: 'http://127.0.0.1:2' });
    expect(settings.external).toEqual({ dynamodb: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:2' });
  });
});

describe('lambdaConfig', () => {
  it("reads table, bucket, keys and issuer from SST's links", () => {
    // What SST puts in a linked function's environment (see sst.config.ts `link:`).
    Object.assign(process.env, {
      SST_RESOURCE_App: JSON.stringify({ name: 'panto', stage: 'test' }),
      SST_RESOURCE_PantoTable: JSON.stringify({ name: 'panto-test-table' }),
      SST_RESOURCE_PantoBucket: JSON.stringify({ name: 'panto-test-bucket' }),
      SST_RESOURCE_AnthropicApiKey: JSON.stringify({ value: 'sk-ant' }),
      SST_RESOURCE_OpenAIApiKey: JSON.stringify({ value: '' }),
      SST_RESOURCE_PantoAuth: JSON.stringify({ issuer: 'https://i/', audience: 'a', jwksUrl: 'https://i/jwks' }),
    });
    const config = lambdaConfig({ PANTO_DEADLINE_MS: '20000' });
    expect(config).toMatchObject({
      tableName: 'panto-test-table',
      bucket: 'panto-test-bucket',
      provider: { provider: 'anthropic', apiKeys: { anthropic: 'sk-ant' } },
      limits: { deadlineMs: 20_000 },
    });
    expect(config.provider.apiKeys).not.toHaveProperty('openai');
    expect(config.aws).toEqual({ region: 'us-east-1' });
    expect(lambdaIssuer()).toEqual({ issuer: 'https://i/', audience: 'a', jwksUrl: 'https://i/jwks' });
  });
});

describe('archive settings', () => {
  it('archives nothing unless PANTO_ARCHIVE_AFTER_DAYS is set; takes fractions of days, and sweeps hourly by default', () => {
    expect(localSettings('/repo', {}).archive).toBeUndefined();
    expect(localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '30' }).archive).toEqual({ afterMs: 30 * 86_400_000, sweepSeconds: 3600 });
    expect(localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '0.0001', PANTO_ARCHIVE_SWEEP_SECONDS: '2' }).archive).toEqual({ afterMs: 8640, sweepSeconds: 2 });
  });

  it.each(['0', '-1', 'soon', '1e3', '3651', '.5'])('refuses PANTO_ARCHIVE_AFTER_DAYS=%s, naming it', (value) => {
    expect(() => localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: value })).toThrow(/PANTO_ARCHIVE_AFTER_DAYS/);
  });

  it('refuses a sweep period that is not a whole number of seconds from 1 to a day', () => {
    expect(() => localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '1', PANTO_ARCHIVE_SWEEP_SECONDS: '0.5' })).toThrow(/PANTO_ARCHIVE_SWEEP_SECONDS/);
  });
});

