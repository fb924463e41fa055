import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SERVICE_LIMITS,
  deployedMCPSettings,
  lambdaConfig,
  lambdaIssuer,
  mcpSettings,
  providerConfig,
  serviceLimits,
  type MCPSettings,
  usageLimits,
} from './config.js';
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
    const chosen = localSettings('/repo', { ANTHROPIC_API_KEY: 'k', PANTO_PROVIDER: 'openai', PANTO_MODEL: 'gpt-5.4-mini' }).config.provider;
    expect(chosen).toMatchObject({ provider: 'openai', model: 'gpt-5.4-mini', reason: 'PANTO_PROVIDER' });
  });

  it('refuses a default model the catalog does not offer, unless the provider has a base URL or it is an extra model', () => {
    expect(() => localSettings('/repo', { PANTO_PROVIDER: 'anthropic', PANTO_MODEL: 'claude-sonnet-4-5' })).toThrow(
      /^PANTO_MODEL: anthropic retired "claude-sonnet-4-5"/,
    );
    expect(() => localSettings('/repo', { PANTO_PROVIDER: 'offline', PANTO_MODEL: 'offline-2' })).toThrow(/PANTO_MODEL: unknown offline model/);
    const own = { PANTO_PROVIDER: 'anthropic', PANTO_MODEL: 'claude-e2e', ANTHROPIC_BASE_URL: 'http://127.0.0.1:1' };
    expect(localSettings('/repo', own).config.provider.model).toBe('claude-e2e');
    const extra = localSettings('/repo', { PANTO_PROVIDER: 'openai', PANTO_MODEL: 'gpt-5.5', PANTO_EXTRA_MODELS: 'openai/gpt-5.5, anthropic/claude-x' });
    expect(extra.config.provider).toMatchObject({ model: 'gpt-5.5', extraModels: ['openai/gpt-5.5', 'anthropic/claude-x'] });
    expect(() => localSettings('/repo', { PANTO_EXTRA_MODELS: 'gpt-5.5' })).toThrow(/PANTO_EXTRA_MODELS/);
  });

  it('keeps data under .panto-local of the root, on port 3000, unless told otherwise', () => {
    expect(localSettings('/repo', {})).toMatchObject({ dataDir: '/repo/.panto-local', port: 3000, defaultOwner: 'local-user' });
    expect(localSettings('/repo', { PANTO_DATA_DIR: '/tmp/x', PORT: '0', PANTO_OWNER: 'bob' })).toMatchObject({
      dataDir: '/tmp/x',
      port: 0,
      defaultOwner: 'bob',
    });
  });

  it('picks free emulator ports unless PANTO_DYNAMODB_PORT / PANTO_S3_PORT pin them, and refuses a port beside an endpoint', () => {
    expect(localSettings('/repo', {}).emulatorPorts).toEqual({ dynamodb: 0, s3: 0 });
    expect(localSettings('/repo', { PANTO_DYNAMODB_PORT: '8000', PANTO_S3_PORT: '4569' }).emulatorPorts).toEqual({ dynamodb: 8000, s3: 4569 });
    expect(() => localSettings('/repo', { PANTO_S3_PORT: '70000' })).toThrow('PANTO_S3_PORT must be an integer from 0 to 65535, not "70000"');
    expect(() => localSettings('/repo', { PANTO_DYNAMODB_PORT: '8000', PANTO_DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000' })).toThrow(
      'PANTO_DYNAMODB_PORT is the port of the emulator npm start starts, and with PANTO_DYNAMODB_ENDPOINT it starts none: set one of them',
    );
  });

  it('refuses a deadline API Gateway would cut', () => {
    const { limits } = localSettings('/repo', { PANTO_DEADLINE_MS: '1000' }).config;
    expect(limits.deadlineMs).toBe(1000);
    expect(DEFAULT_SERVICE_LIMITS.deadlineMs).toBeLessThan(30_000);
    expect(() => localSettings('/repo', { PANTO_DEADLINE_MS: '30000' })).toThrow(/PANTO_DEADLINE_MS/);
    expect(() => localSettings('/repo', { PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('frees the session of a crashed turn of any kind within 45 s by default, renewing its lease three times a term', () => {
    const limits = serviceLimits({});
    expect(limits).toEqual(DEFAULT_SERVICE_LIMITS);
    // One lease for every kind of turn: nothing sized to the 14-minute streamed deadline any more.
    expect(limits).not.toHaveProperty('streamLeaseMs');
    expect(limits.leaseMs).toBe(30_000);
    expect(limits.leaseMs).toBeLessThanOrEqual(45_000);
    expect(limits.leaseRenewMs).toBe(10_000);
    expect(limits.leaseMs).toBeGreaterThanOrEqual(2 * limits.leaseRenewMs);
  });

  it('renews a turn lease every second on the local stack (so a stop is seen within a second), unless PANTO_LEASE_RENEW_MS is set', () => {
    expect(localSettings('/repo', {}).config.limits).toEqual({ ...DEFAULT_SERVICE_LIMITS, leaseRenewMs: 1000 });
    expect(localSettings('/repo', { PANTO_LEASE_RENEW_MS: '5000' }).config.limits.leaseRenewMs).toBe(5000);
  });

  it('reads the lease from PANTO_LEASE_MS, the renewal from PANTO_LEASE_RENEW_MS (a third of the lease by default), and keeps a renewal within half the lease', () => {
    expect(localSettings('/repo', { PANTO_LEASE_MS: '3000' }).config.limits).toMatchObject({ leaseMs: 3000, leaseRenewMs: 1000 });
    expect(localSettings('/repo', { PANTO_LEASE_MS: '3000', PANTO_LEASE_RENEW_MS: '1500' }).config.limits).toMatchObject({ leaseRenewMs: 1500 });
    expect(() => localSettings('/repo', { PANTO_LEASE_MS: '3000', PANTO_LEASE_RENEW_MS: '1501' })).toThrow(
      /PANTO_LEASE_RENEW_MS must be an integer from 100 to 1500/,
    );
    expect(() => localSettings('/repo', { PANTO_LEASE_MS: '999' })).toThrow(/PANTO_LEASE_MS/);
    expect(localSettings('/repo', { PANTO_EVENTS_POLL_MS: '250' }).config.limits.eventsPollMs).toBe(250);
  });

  it('reads emulators that are already running from PANTO_DYNAMODB_ENDPOINT and PANTO_S3_ENDPOINT', () => {
    const settings = localSettings('/repo', { PANTO_DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', PANTO_S3_ENDPOINT: 'http://127.0.0.1:2' });
    expect(settings.external).toEqual({ dynamodb: 'http://127.0.0.1:1', s3: 'http://127.0.0.1:2' });
  });
});

describe('providerConfig and Bedrock', () => {
  it('makes Bedrock the default on AWS when no provider key secret is set and the stack granted models, and says why', () => {
    const granted = { AWS_REGION: 'eu-west-1', PANTO_BEDROCK_MODELS: 'eu.anthropic.claude-sonnet-4-6' };
    const config = providerConfig(granted, {}, { onAWS: true });
    expect(config).toMatchObject({ provider: 'bedrock', bedrock: { region: 'eu-west-1', models: ['eu.anthropic.claude-sonnet-4-6'] } });
    expect(config.reason).toBe('no provider key secret is set: Amazon Bedrock, through the function role');
    expect(providerConfig(granted, { anthropic: 'sk-ant' }, { onAWS: true })).toMatchObject({ provider: 'anthropic', bedrock: { region: 'eu-west-1' } });
    // A stack deployed with another provider and no Bedrock model grants the role none: no Bedrock.
    expect(providerConfig({ AWS_REGION: 'eu-west-1' }, {}, { onAWS: true })).toMatchObject({ provider: 'offline' });
    expect(providerConfig({ AWS_REGION: 'eu-west-1' }, {}, { onAWS: true }).bedrock).toBeUndefined();
  });

  it('calls Bedrock off AWS only when PANTO_PROVIDER says so, at the endpoint AWS_ENDPOINT_URL_BEDROCK_RUNTIME names', () => {
    expect(providerConfig({}, {}).bedrock).toBeUndefined();
    expect(providerConfig({}, {}).provider).toBe('offline');
    const local = providerConfig({ PANTO_PROVIDER: 'bedrock', AWS_REGION: 'us-west-2', AWS_ENDPOINT_URL_BEDROCK_RUNTIME: 'http://127.0.0.1:4566' }, {});
    expect(local).toMatchObject({ provider: 'bedrock', reason: 'PANTO_PROVIDER', bedrock: { region: 'us-west-2', endpoint: 'http://127.0.0.1:4566' } });
  });

  it('checks a Bedrock PANTO_MODEL against the catalog, and reads the allowed models of PANTO_BEDROCK_MODELS', () => {
    expect(() => providerConfig({ PANTO_PROVIDER: 'bedrock', PANTO_MODEL: 'us.nonesuch-v9' }, {})).toThrow(
      /PANTO_MODEL: unknown bedrock model "us.nonesuch-v9"/,
    );
    const config = providerConfig({ PANTO_BEDROCK_MODELS: 'us.amazon.nova-pro-v1:0, us.anthropic.claude-sonnet-4-6' }, {}, { onAWS: true });
    expect(config.bedrock?.models).toEqual(['us.amazon.nova-pro-v1:0', 'us.anthropic.claude-sonnet-4-6']);
    expect(() => providerConfig({ PANTO_BEDROCK_MODELS: 'bad model' }, {}, { onAWS: true })).toThrow(/PANTO_BEDROCK_MODELS: "bad model" is not a model name/);
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
      SST_RESOURCE_MCPServers: JSON.stringify({ value: '' }),
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
    expect(config.mcp).toEqual({ servers: [], approvals: {}, problems: [] });
  });
});

describe('mcpSettings', () => {
  it('reads Streamable HTTP servers from PANTO_MCP_SERVERS, and leaves out stdio and malformed ones with a problem', () => {
    const json = JSON.stringify({
      mcpServers: {
        docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' } },
        local: { command: 'npx', args: ['server'] },
        typo: { url: 'not a url', headers: { Authorization: 'Bearer other-s3cret' } },
      },
    });
    const settings = localSettings('/repo', { PANTO_MCP_SERVERS: json }).config.mcp;
    expect(settings.servers).toEqual([
      { type: 'http', name: 'docs', url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer s3cret' }, source: 'PANTO_MCP_SERVERS' },
    ]);
    expect(settings.problems).toEqual([
      'PANTO_MCP_SERVERS: server "local": stdio servers (command) cannot run here; give a Streamable HTTP url',
      'PANTO_MCP_SERVERS: server "typo": url is not a URL',
    ]);
    // Problems are logged: they never hold a header's value.
    expect(settings.problems.join('\n')).not.toContain('s3cret');
  });

  it('is no servers when unset, and one problem (never a crash) when the value is not JSON', () => {
    expect(mcpSettings(undefined, 'PANTO_MCP_SERVERS')).toEqual({ servers: [], approvals: {}, problems: [] });
    expect(mcpSettings('  ', 'PANTO_MCP_SERVERS')).toEqual({ servers: [], approvals: {}, problems: [] });
    expect(mcpSettings('{"mcpServers": {', 'the MCPServers secret').problems).toEqual([expect.stringMatching(/^the MCPServers secret: not JSON: /)]);
  });

  it('reads which tools ask for approval from PANTO_MCP_APPROVALS, beside the servers of the secret or of PANTO_MCP_SERVERS', () => {
    const servers = JSON.stringify({ mcpServers: { shop: { url: 'https://shop.example/mcp' } } });
    const env = { PANTO_MCP_SERVERS: servers, PANTO_MCP_APPROVALS: '{"shop":{"search":"never","*":"ask"},"gone":"never"}' };
    for (const settings of [deployedMCPSettings('', env), deployedMCPSettings(servers, env), localSettings('/repo', env).config.mcp]) {
      expect(settings.approvals).toEqual({ shop: { tools: { search: 'never' }, others: 'ask' } });
      expect(settings.problems).toEqual(['PANTO_MCP_APPROVALS: "gone" is not a server of PANTO_MCP_SERVERS; its rules are ignored']);
    }
  });

  it('takes the MCPServers secret over the deploy-time PANTO_MCP_SERVERS', () => {
    const secret = JSON.stringify({ mcpServers: { fromSecret: { url: 'https://a.example/mcp' } } });
    const env = { PANTO_MCP_SERVERS: JSON.stringify({ mcpServers: { fromEnv: { url: 'https://b.example/mcp' } } }) };
    const names = (settings: MCPSettings) => settings.servers.map((server) => [server.name, server.source]);
    expect(names(deployedMCPSettings(secret, env))).toEqual([['fromSecret', 'the MCPServers secret']]);
    expect(names(deployedMCPSettings('', env))).toEqual([['fromEnv', 'PANTO_MCP_SERVERS']]);
    // lambdaConfig reads the linked secret (empty here) and the environment it is given.
    expect(names(lambdaConfig(env).mcp)).toEqual([['fromEnv', 'PANTO_MCP_SERVERS']]);
  });
});

describe('archive settings', () => {
  it('archives nothing unless PANTO_ARCHIVE_AFTER_DAYS is set; takes fractions of days, and sweeps hourly by default', () => {
    expect(localSettings('/repo', {}).archive).toBeUndefined();
    expect(localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '30' }).archive).toEqual({ afterMs: 30 * 86_400_000, sweepSeconds: 3600 });
    expect(localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '0.0001', PANTO_ARCHIVE_SWEEP_SECONDS: '2' }).archive).toEqual({
      afterMs: 8640,
      sweepSeconds: 2,
    });
  });

  it.each(['0', '-1', 'soon', '1e3', '3651', '.5'])('refuses PANTO_ARCHIVE_AFTER_DAYS=%s, naming it', (value) => {
    expect(() => localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: value })).toThrow(/PANTO_ARCHIVE_AFTER_DAYS/);
  });

  it('refuses a sweep period that is not a whole number of seconds from 1 to a day', () => {
    expect(() => localSettings('/repo', { PANTO_ARCHIVE_AFTER_DAYS: '1', PANTO_ARCHIVE_SWEEP_SECONDS: '0.5' })).toThrow(/PANTO_ARCHIVE_SWEEP_SECONDS/);
  });
});

describe('usageLimits', () => {
  it("reads each owner's limits, none when unset, and refuses a value that is not one", () => {
    expect(usageLimits({})).toEqual({ dailyUsd: null, monthlyUsd: null, turnsPerMinute: null, concurrentTurns: null });
    expect(usageLimits({ PANTO_BUDGET_DAILY_USD: '2.5', PANTO_BUDGET_MONTHLY_USD: '40', PANTO_TURNS_PER_MINUTE: '10', PANTO_CONCURRENT_TURNS: '3' })).toEqual({
      dailyUsd: 2.5,
      monthlyUsd: 40,
      turnsPerMinute: 10,
      concurrentTurns: 3,
    });
    expect(() => usageLimits({ PANTO_BUDGET_DAILY_USD: '$5' })).toThrow(/PANTO_BUDGET_DAILY_USD must be a number above 0/);
    expect(() => usageLimits({ PANTO_TURNS_PER_MINUTE: '1.5' })).toThrow(/PANTO_TURNS_PER_MINUTE must be an integer from 1/);
    expect(() => usageLimits({ PANTO_CONCURRENT_TURNS: '0' })).toThrow(/PANTO_CONCURRENT_TURNS/);
  });

  it("reads the operator's model prices at start, and refuses the server a PANTO_MODEL_PRICES that is not a price table", () => {
    const { config } = localSettings('/repo', { PANTO_MODEL_PRICES: '{"openai/gpt-5.4-2026-03-05": {"input": 2.5, "output": 15}}' });
    expect(config.modelPrices).toEqual({ 'openai/gpt-5.4-2026-03-05': { input: 2.5, output: 15, cacheRead: 2.5, cacheWrite: 2.5 } });
    expect(localSettings('/repo', {}).config.modelPrices).toEqual({});
    expect(() => localSettings('/repo', { PANTO_MODEL_PRICES: '{"gpt-x": 1}' })).toThrow(/PANTO_MODEL_PRICES/);
  });
});
