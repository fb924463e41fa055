/**
 * The one place the deployed service reads its environment: SST's linked resources
 * (`Resource.X`) and environment variables for tunables. The local stack's settings build
 * on the helpers here (`local/settings.ts`), never the other way round.
 */
import { defaultProviderName } from '@panto/core';
import { parseMCPConfig, type MCPHTTPServerConfig } from '@panto/core/mcp';
import { Resource } from 'sst/resource';

/** The links `sst.config.ts` gives the functions (see `link:` there). */
declare module 'sst/resource' {
  export interface Resource {
    PantoTable: { name: string };
    PantoBucket: { name: string };
    PantoAuth: { issuer: string; audience: string; jwksUrl: string };
    AnthropicApiKey: { value: string };
    OpenAIApiKey: { value: string };
    /** The JSON of an mcp.json, as a secret because headers may hold tokens; empty when unset. */
    MCPServers: { value: string };
  }
}

/** Budgets of one request. */
export interface ServiceLimits {
  /** A synchronous turn stops here (below API Gateway's fixed 30 s), with all so far persisted. */
  deadlineMs: number;
  /** A streamed turn stops here (below the streaming function's 15 min timeout). */
  streamDeadlineMs: number;
  /** Request bodies above this are refused with 413 before they are parsed. */
  bodyLimitBytes: number;
  /** How long a synchronous turn holds its session; a crashed turn frees it after this. */
  leaseMs: number;
  /** How long a streamed turn holds its session. */
  streamLeaseMs: number;
  /** Lifetime of an export's presigned URL. */
  exportUrlTtlSeconds: number;
}

/** Where the AWS clients point: AWS itself, or (the local stack) an emulator. */
export interface AwsEndpoints {
  region: string;
  /** DynamoDB Local, when set (local stack only). */
  dynamodb?: string;
  /** The S3 emulator, when set (local stack only). */
  s3?: string;
}

/** The server's providers: the default one, and the key and base URL of each. */
export interface ProviderConfig {
  /** The provider a session uses until it picks one (`PANTO_PROVIDER`). */
  provider: string;
  /** Its model (`PANTO_MODEL`); the provider's default when absent. */
  model?: string;
  apiKeys: { [provider: string]: string };
  baseURLs: { [provider: string]: string };
  /** Why this provider was chosen, for the local stack to say. */
  reason: string;
}

export interface ServiceConfig {
  tableName: string;
  bucket: string;
  aws: AwsEndpoints;
  limits: ServiceLimits;
  provider: ProviderConfig;
  /** Sessions expire this long after their last write (DynamoDB TTL); never when absent. */
  sessionTtlSeconds?: number;
  /** The MCP servers whose tools every turn offers (see {@link mcpSettings}). */
  mcp: MCPSettings;
}

/** The service's MCP servers: Streamable HTTP only (a function cannot keep a stdio server). */
export interface MCPSettings {
  servers: MCPHTTPServerConfig[];
  /** What was wrong with the configuration, one line per server left out; never a header's value. */
  problems: string[];
}

/** The JWT issuer the streaming function verifies tokens against. */
export interface IssuerSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

export type Env = { readonly [name: string]: string | undefined };

export const DEFAULT_LIMITS: ServiceLimits = {
  deadlineMs: 25_000,
  streamDeadlineMs: 840_000,
  bodyLimitBytes: 256 * 1024,
  leaseMs: 35_000,
  streamLeaseMs: 870_000,
  exportUrlTtlSeconds: 3600,
};

/** The configuration of a Lambda function deployed by `sst.config.ts`. */
export function lambdaConfig(env: Env = process.env): ServiceConfig {
  const apiKeys: { [provider: string]: string } = {};
  if (Resource.AnthropicApiKey.value) apiKeys.anthropic = Resource.AnthropicApiKey.value;
  if (Resource.OpenAIApiKey.value) apiKeys.openai = Resource.OpenAIApiKey.value;
  return {
    tableName: Resource.PantoTable.name,
    bucket: Resource.PantoBucket.name,
    aws: awsEndpoints(env),
    limits: serviceLimits(env),
    provider: providerConfig(env, apiKeys),
    ...sessionTtl(env),
    mcp: deployedMCPSettings(Resource.MCPServers.value, env),
  };
}

/** Where a session's data lives: what the TTL cleanup function needs, and no more. */
export interface StorageConfig {
  tableName: string;
  bucket: string;
  aws: AwsEndpoints;
}

/** The configuration of the TTL cleanup function (linked to the table and bucket only). */
export function lambdaStorageConfig(env: Env = process.env): StorageConfig {
  return { tableName: Resource.PantoTable.name, bucket: Resource.PantoBucket.name, aws: awsEndpoints(env) };
}

/** The issuer the streaming function checks tokens against (linked as `PantoAuth`). */
export function lambdaIssuer(): IssuerSettings {
  const { issuer, audience, jwksUrl } = Resource.PantoAuth;
  return { issuer, audience, jwksUrl };
}

/** The provider configuration from the environment and the keys this deployment holds. */
export function providerConfig(env: Env, apiKeys: { [provider: string]: string }): ProviderConfig {
  const baseURLs: { [provider: string]: string } = {};
  if (env.ANTHROPIC_BASE_URL) baseURLs.anthropic = env.ANTHROPIC_BASE_URL;
  if (env.OPENAI_BASE_URL) baseURLs.openai = env.OPENAI_BASE_URL;
  // The same rule as the CLI's, applied to the keys this deployment has (secrets in AWS).
  const fallback = defaultProviderName({ ANTHROPIC_API_KEY: apiKeys.anthropic, OPENAI_API_KEY: apiKeys.openai });
  const provider = env.PANTO_PROVIDER || fallback;
  const reason = env.PANTO_PROVIDER
    ? 'PANTO_PROVIDER'
    : fallback === 'offline'
      ? 'no provider API key is set'
      : `${fallback === 'anthropic' ? 'an Anthropic' : 'an OpenAI'} API key is set`;
  return {
    provider,
    ...(env.PANTO_MODEL ? { model: env.PANTO_MODEL } : {}),
    apiKeys,
    baseURLs,
    reason,
  };
}

function awsEndpoints(env: Env): AwsEndpoints {
  return { region: env.AWS_REGION ?? 'us-east-1' };
}

/** The request budgets, from `PANTO_*_MS` and friends. */
export function serviceLimits(env: Env): ServiceLimits {
  const deadlineMs = integer(env, 'PANTO_DEADLINE_MS', DEFAULT_LIMITS.deadlineMs, 1, 29_000);
  const streamDeadlineMs = integer(env, 'PANTO_STREAM_DEADLINE_MS', DEFAULT_LIMITS.streamDeadlineMs, 1, 880_000);
  return {
    deadlineMs,
    streamDeadlineMs,
    bodyLimitBytes: integer(env, 'PANTO_BODY_LIMIT_BYTES', DEFAULT_LIMITS.bodyLimitBytes, 1, 6 * 1024 * 1024),
    // The lease outlives the deadline: the turn persists its last batch after the abort.
    leaseMs: integer(env, 'PANTO_LEASE_MS', deadlineMs + 10_000, deadlineMs, 3_600_000),
    streamLeaseMs: integer(env, 'PANTO_STREAM_LEASE_MS', streamDeadlineMs + 30_000, streamDeadlineMs, 3_600_000),
    exportUrlTtlSeconds: integer(env, 'PANTO_EXPORT_URL_TTL_SECONDS', DEFAULT_LIMITS.exportUrlTtlSeconds, 1, 604_800),
  };
}

/**
 * The MCP servers of `PANTO_MCP_SERVERS` (or the secret holding the same): the JSON of an
 * mcp.json, `{ "mcpServers": { "<name>": { "url", "headers"? } } }`. Servers that are not
 * Streamable HTTP, and malformed entries, are left out with a problem; a value that is not
 * JSON is one problem and no servers. Never throws: a bad MCP setting must not take the
 * API down. `source` names the setting in problems.
 */
export function mcpSettings(text: string | undefined, source: string): MCPSettings {
  if (text === undefined || text.trim() === '') return { servers: [], problems: [] };
  const { servers, problems } = parseMCPConfig(text, source, { transports: ['http'] });
  return { servers: servers.filter((server): server is MCPHTTPServerConfig => server.type === 'http'), problems };
}

/** A deployment's MCP servers: the `MCPServers` secret when it is set (headers may hold tokens), else `PANTO_MCP_SERVERS`. */
export function deployedMCPSettings(secret: string, env: Env): MCPSettings {
  return secret.trim() !== '' ? mcpSettings(secret, 'the MCPServers secret') : mcpSettings(env.PANTO_MCP_SERVERS, 'PANTO_MCP_SERVERS');
}

/** `PANTO_SESSION_TTL_DAYS` as seconds, when set. */
export function sessionTtl(env: Env): { sessionTtlSeconds?: number } {
  if (!env.PANTO_SESSION_TTL_DAYS) return {};
  return { sessionTtlSeconds: integer(env, 'PANTO_SESSION_TTL_DAYS', 0, 1, 3650) * 86_400 };
}

/** An integer setting from `env[name]`, within bounds, or `fallback` when unset; a clear error otherwise. */
export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, not ${JSON.stringify(text)}`);
  }
  return value;
}
