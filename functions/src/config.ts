/**
 * The one place the deployed service reads its environment: SST's linked resources
 * (`Resource.X`) and environment variables for tunables (the providers' in
 * `provider-config.ts`). The local stack's settings build on the helpers here
 * (`local/settings.ts`), never the other way round.
 */
import { parseMCPConfig, type MCPHTTPServerConfig } from '@panto/core/mcp/config';
import type { OwnerLimits } from '@panto/aws/service';
import { Resource } from 'sst/resource';
import { type ModelPriceTable, parseModelPrices } from './model-prices.js';
import { type Env, integer } from './env-setting.js';
import { list } from './list-setting.js';
import { type ServiceLimits, serviceLimits } from './service-limits.js';
import { type MCPApprovalRules, parseMCPApprovals } from './mcp-approvals.js';
import { type ProviderConfig, providerConfig } from './provider-config.js';

export { type Env, integer } from './env-setting.js';
export { DEFAULT_SERVICE_LIMITS, type ServiceLimits, serviceLimits } from './service-limits.js';
export { type BedrockSettings, bedrockSettings, type ProviderConfig, providerConfig } from './provider-config.js';

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

/** Where the AWS clients point: AWS itself, or (the local stack) an emulator. */
export interface AwsEndpoints {
  region: string;
  /** DynamoDB Local, when set (local stack only). */
  dynamodb?: string;
  /** The S3 emulator, when set (local stack only). */
  s3?: string;
}

export interface ServiceConfig {
  tableName: string;
  bucket: string;
  aws: AwsEndpoints;
  limits: ServiceLimits;
  provider: ProviderConfig;
  /** Origins browsers may call the API from (`PANTO_CORS_ORIGINS`); `*` for any. */
  corsOrigins: string[];
  /** Sessions expire this long after their last write (DynamoDB TTL); never when absent. */
  sessionTtlSeconds?: number;
  /** How long an `Idempotency-Key` answers retries (`PANTO_IDEMPOTENCY_TTL_HOURS`, default 24). */
  idempotencyTtlSeconds: number;
  /** The MCP servers whose tools every turn offers (see {@link mcpSettings}). */
  mcp: MCPSettings;
  /** The limits of an owner without overrides (see {@link usageLimits}). */
  usage: OwnerLimits;
  /** `PANTO_MODEL_PRICES`: the operator's prices, which the usage ledger counts before the catalog's (see model-prices.ts). */
  modelPrices: ModelPriceTable;
}

/** The service's MCP servers: Streamable HTTP only (a function cannot keep a stdio server). */
export interface MCPSettings {
  servers: MCPHTTPServerConfig[];
  /** Which of their tools ask for approval (`PANTO_MCP_APPROVALS`, see mcp-approvals.ts); a tool no rule names asks unless it is marked read-only. */
  approvals: MCPApprovalRules;
  /** What was wrong with the configuration, one line per server left out or rule not taken; never a header's value. */
  problems: string[];
}

/** The JWT issuer the streaming function verifies tokens against. */
export interface IssuerSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

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
    provider: providerConfig(env, apiKeys, { onAWS: true }),
    corsOrigins: corsOrigins(env),
    idempotencyTtlSeconds: idempotencyTtl(env),
    ...sessionTtl(env),
    mcp: deployedMCPSettings(Resource.MCPServers.value, env),
    usage: usageLimits(env),
    modelPrices: parseModelPrices(env.PANTO_MODEL_PRICES),
  };
}

/** `PANTO_BUDGET_DAILY_USD`, `PANTO_BUDGET_MONTHLY_USD` (dollars), `PANTO_TURNS_PER_MINUTE`, `PANTO_CONCURRENT_TURNS`: each owner's limits; none when unset. */
export function usageLimits(env: Env): OwnerLimits {
  const count = (name: string): number | null => (env[name] ? integer(env, name, 0, 1, 1_000_000) : null);
  return {
    dailyUsd: decimal(env, 'PANTO_BUDGET_DAILY_USD', 1_000_000) ?? null,
    monthlyUsd: decimal(env, 'PANTO_BUDGET_MONTHLY_USD', 1_000_000) ?? null,
    turnsPerMinute: count('PANTO_TURNS_PER_MINUTE'),
    concurrentTurns: count('PANTO_CONCURRENT_TURNS'),
  };
}

/** `PANTO_IDEMPOTENCY_TTL_HOURS` (1 hour to 7 days, default 24 hours) as seconds. */
export function idempotencyTtl(env: Env): number {
  return integer(env, 'PANTO_IDEMPOTENCY_TTL_HOURS', 24, 1, 168) * 3600;
}

/**
 * `PANTO_CORS_ORIGINS`: comma-separated origins (`https://app.example.com`, no path), or `*`
 * for any; none when unset. A value that is not an origin is refused, so a typo cannot pass
 * silently for a rule that allows nothing.
 */
export function corsOrigins(env: Env): string[] {
  const origins = list(env.PANTO_CORS_ORIGINS);
  for (const origin of origins) {
    if (origin === '*') continue;
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
      throw new Error(`PANTO_CORS_ORIGINS: ${JSON.stringify(origin)} is not an origin like https://app.example.com`);
    }
  }
  return origins;
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

/** What the archive sweeper needs: where sessions live, and after how long idle they are archived. */
export interface ArchiveSweepConfig extends StorageConfig {
  /** `PANTO_ARCHIVE_AFTER_DAYS` in milliseconds; no automatic archiving when absent. */
  archiveAfterMs?: number;
}

/** The configuration of the scheduled archive sweeper (linked to the table and bucket only). */
export function lambdaArchiveSweepConfig(env: Env = process.env): ArchiveSweepConfig {
  return { ...lambdaStorageConfig(env), ...archiveAfter(env) };
}

/** Longest `PANTO_ARCHIVE_AFTER_DAYS`: ten years. */
const MAX_ARCHIVE_AFTER_DAYS = 3650;

/**
 * `PANTO_ARCHIVE_AFTER_DAYS` — a session with no write for this many days is archived to S3
 * (fractions allowed: `0.0001` is under nine seconds, for tests) — in milliseconds, when set.
 */
export function archiveAfter(env: Env): { archiveAfterMs?: number } {
  const days = decimal(env, 'PANTO_ARCHIVE_AFTER_DAYS', MAX_ARCHIVE_AFTER_DAYS);
  return days === undefined ? {} : { archiveAfterMs: Math.max(1, Math.round(days * 86_400_000)) };
}

/** A positive decimal setting (`1`, `0.5`) of at most `max`, or undefined when unset; a clear error otherwise. */
export function decimal(env: Env, name: string, max: number): number | undefined {
  const text = env[name];
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !(value > 0) || value > max) {
    throw new Error(`${name} must be a number above 0 and at most ${max} (fractions allowed), not ${JSON.stringify(text)}`);
  }
  return value;
}

/** The issuer the streaming function checks tokens against (linked as `PantoAuth`). */
export function lambdaIssuer(): IssuerSettings {
  const { issuer, audience, jwksUrl } = Resource.PantoAuth;
  return { issuer, audience, jwksUrl };
}

function awsEndpoints(env: Env): AwsEndpoints {
  return { region: env.AWS_REGION ?? 'us-east-1' };
}

/**
 * The MCP servers of `PANTO_MCP_SERVERS` (or the secret holding the same): the JSON of an
 * mcp.json, `{ "mcpServers": { "<name>": { "url", "headers"? } } }`. Servers that are not
 * Streamable HTTP, and malformed entries, are left out with a problem; a value that is not
 * JSON is one problem and no servers. Never throws: a bad MCP setting must not take the
 * API down. `source` names the setting in problems.
 */
export function mcpSettings(text: string | undefined, source: string, approvalsText?: string): MCPSettings {
  if (text === undefined || text.trim() === '') return { servers: [], approvals: {}, problems: [] };
  const parsed = parseMCPConfig(text, source, { transports: ['http'] });
  const servers = parsed.servers.filter((server): server is MCPHTTPServerConfig => server.type === 'http');
  const approvals = parseMCPApprovals(
    approvalsText,
    servers.map((server) => server.name),
  );
  return { servers, approvals: approvals.rules, problems: [...parsed.problems, ...approvals.problems] };
}

/**
 * A deployment's MCP servers: the `MCPServers` secret when it is set (headers may hold tokens),
 * else `PANTO_MCP_SERVERS`; which of their tools ask for approval: `PANTO_MCP_APPROVALS`.
 */
export function deployedMCPSettings(secret: string, env: Env): MCPSettings {
  return secret.trim() !== ''
    ? mcpSettings(secret, 'the MCPServers secret', env.PANTO_MCP_APPROVALS)
    : mcpSettings(env.PANTO_MCP_SERVERS, 'PANTO_MCP_SERVERS', env.PANTO_MCP_APPROVALS);
}

/** `PANTO_SESSION_TTL_DAYS` as seconds, when set. */
export function sessionTtl(env: Env): { sessionTtlSeconds?: number } {
  if (!env.PANTO_SESSION_TTL_DAYS) return {};
  return { sessionTtlSeconds: integer(env, 'PANTO_SESSION_TTL_DAYS', 0, 1, 3650) * 86_400 };
}
