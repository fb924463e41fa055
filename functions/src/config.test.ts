import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, deployedMCPSettings, lambdaConfig, lambdaIssuer, mcpSettings, type MCPSettings } from './config.js';
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
    expect(config.mcp).toEqual({ servers: [], problems: [] });
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
    expect(mcpSettings(undefined, 'PANTO_MCP_SERVERS')).toEqual({ servers: [], problems: [] });
    expect(mcpSettings('  ', 'PANTO_MCP_SERVERS')).toEqual({ servers: [], problems: [] });
    expect(mcpSettings('{"mcpServers": {', 'the MCPServers secret').problems).toEqual([expect.stringMatching(/^the MCPServers secret: not JSON: /)]);
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
